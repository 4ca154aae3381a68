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
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_ONLY="bf16→bf16 8192×8192×1024 epilogue,bf16→bf16 4096×14336×4096" timeout 60 bundle/bin/bench-gemm_tc > $OUT/epilogue.log 2>&1; echo "bench rc=$?"
grep -v JSON $OUT/epilogue.log | grep -E "\|"
FERROTILE_REQUIRE_GPU=1 timeout 100 bundle/bin/kernels --include-ignored --test-threads=8 wgmma > $OUT/wgmma_tests.log 2>&1; echo "tests rc=$?"
grep -E "^test result|FAILED|panicked" $OUT/wgmma_tests.log | head -20
