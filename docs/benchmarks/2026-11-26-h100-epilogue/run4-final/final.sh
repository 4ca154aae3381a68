#!/usr/bin/env bash
set -u
tar xzf .gpu/bundle.tar.gz
libs=$(python3 - <<'PY'
import glob, os, sys
d=[]
try:
    import nvidia.cublas as m; d += [os.path.join(p,"lib") for p in m.__path__]
except Exception: pass
for r in sys.path:
    d += glob.glob(os.path.join(r,"nvidia/cublas/lib")) + glob.glob(os.path.join(r,"torch/lib"))
print(":".join(x for x in d if glob.glob(os.path.join(x,"libcublas.so*"))))
PY
)
export LD_LIBRARY_PATH=$libs:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
FERROTILE_REQUIRE_GPU=1 timeout 300 bundle/bin/kernels --include-ignored --test-threads=8 wgmma > $OUT/wgmma_tests.log 2>&1; echo "tests rc=$?"
grep -E "^test result|FAILED|panicked" $OUT/wgmma_tests.log | head -20
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×8192,bf16→bf16 8192×8192×1024,bf16→bf16 4096×14336×4096,bf16→bf16 2048×2048×2048,bf16→bf16 1024×1024×1024,bf16→bf16 4093×4099×4091,bf16→bf16 1021×1019×1031,f16→f16 8192×8192×8192,bf16→f32 8192×8192×8192" timeout 330 bundle/bin/bench-gemm_tc > $OUT/gemm_tc.log 2>&1; echo "bench rc=$?"
grep -v JSON $OUT/gemm_tc.log | grep -E "auto|cuBLAS|FAIL|wgmma_128|fused"
