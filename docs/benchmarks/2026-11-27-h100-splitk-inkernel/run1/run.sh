#!/usr/bin/env bash
# Split-K inside the wgmma kernel (the last part of a tile sums the others; no reduction launch): GPU tests wgmma + mma,
# memcheck on split-K cases, bench decode round 1 (records) with ten calls back to back.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
FERROTILE_REQUIRE_GPU=1 timeout 290 bundle/bin/kernels --include-ignored --test-threads=8 cuda::wgmma cuda::mma > $OUT/t-tc.log 2>&1; echo "tests rc=$?"
grep "test result" $OUT/t-tc.log; grep -E "FAILED|panicked|failed" $OUT/t-tc.log | head -10
FERROTILE_REQUIRE_GPU=1 timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x128::bias_gelu::45x7 > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/memcheck.log | tail -3
export FERROTILE_BENCH_BACK_TO_BACK=1
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_ONLY="decode" timeout 200 bundle/bin/bench-gemm_tc > $OUT/gemm_tc-1.log 2>&1; echo "=== bench rc=$?"
grep -E "decode" $OUT/gemm_tc-1.log | grep -v JSON | awk -F'|' '{print $3,$4,$5,$7}' | head -40
gzip $OUT/t-tc.log; ls $OUT
