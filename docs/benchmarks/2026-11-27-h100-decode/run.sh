#!/usr/bin/env bash
# Decode: split-K parts allocated without clearing, C's map not uploaded on the split path (since 7e43763); rows also timed ten calls back to back. GPU tests wgmma, two bench rounds of the decode shapes.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --test-threads=8 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"; grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked" $OUT/t-wgmma.log | head -10
export FERROTILE_BENCH_BACK_TO_BACK=1
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_ONLY="decode" timeout 150 bundle/bin/bench-gemm_tc > $OUT/gemm_tc.log 2>&1; echo "=== rc=$?"
grep -E "decode" $OUT/gemm_tc.log | grep -v JSON | awk -F'|' '{print $3,$4,$5,$7}' | head -40
FERROTILE_BENCH_ONLY="decode" timeout 150 bundle/bin/bench-gemm_tc > $OUT/gemm_tc2.log 2>&1; echo "=== round 2 rc=$?"
grep -E "decode" $OUT/gemm_tc2.log | grep -v JSON | grep -E "copy|auto|cuBLAS" | awk -F'|' '{print $3,$4,$5,$7}' | head -30
gzip $OUT/t-wgmma.log; ls $OUT
