#!/usr/bin/env bash
# Issue 14 on an H200: wgmma GPU tests and the tensor-core bench (wgmma Auto against cuBLAS in the same run) on the
# shapes the acceptance names; the flat transpose's GPU tests after the review fix.
set -u
mkdir -p /tmp/t && tar xzf .gpu/new.tar.gz -C /tmp/t
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
cd /tmp/t
FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --test-threads=8 wgmma > $OUT/tests-wgmma.log 2>&1; echo "tests rc=$?"
grep -E "^test result|FAILED|panicked" $OUT/tests-wgmma.log | head -20
# The flat transpose after the review's fix (flat positions in isize before the cast): GPU tests and memcheck.
FERROTILE_REQUIRE_GPU=1 timeout 100 bundle/bin/kernels --include-ignored --test-threads=8 transpose > $OUT/tests-transpose.log 2>&1; echo "tests transpose rc=$?"
grep -E "^test result|FAILED|panicked" $OUT/tests-transpose.log | head -10
FERROTILE_REQUIRE_GPU=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::transpose::flat > $OUT/sanitizer-memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/sanitizer-memcheck.log | tail -2
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×8192,bf16→bf16 8192×8192×1024,bf16→bf16 4096×14336×4096,bf16→bf16 4093×4099×4091,bf16→bf16 1021×1019×1031,bf16→bf16 1024×1024×1024,f16→f16 8192×8192×8192,bf16→f32 8192×8192×8192,decode" timeout 330 bundle/bin/bench-gemm_tc > $OUT/gemm_tc.log 2>&1; echo "bench rc=$?"
grep -v JSON $OUT/gemm_tc.log | grep -E "auto|cuBLAS|FAIL|decode" | head -60
