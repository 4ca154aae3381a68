#!/usr/bin/env bash
# Unit queue build: forced split sweep of decode (swapped, 128x128 tiles), GPU tests cuda::wgmma, memcheck + racecheck, ncu.
set -u
mkdir -p /tmp/new && tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/new
FERROTILE_RESULTS=$OUT/results-splits.jsonl FERROTILE_BENCH_DECODE_SPLITS=2,4,8,16 FERROTILE_BENCH_ONLY="1×8192×8192 decode,64×14336×4096 decode" timeout 150 bundle/bin/bench-gemm_tc > $OUT/bench-splits.log 2>&1; echo "=== splits rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/bench-splits.log | awk -F'|' '{print $3,$4,$5,$7}' | grep -v "mma_128x128 \|pp_128" | head -40
FERROTILE_REQUIRE_GPU=1 timeout 230 bundle/bin/kernels --include-ignored --test-threads=14 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked|failed" $OUT/t-wgmma.log | head -10
FERROTILE_REQUIRE_GPU=1 timeout 30 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x128::2100x2051x520 > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/memcheck.log | tail -2
FERROTILE_REQUIRE_GPU=1 timeout 30 compute-sanitizer --tool racecheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_swap_64x128::bias_gelu::45x70x600 > $OUT/racecheck.log 2>&1; echo "racecheck rc=$?"; grep -E "test result|ERROR SUMMARY|RACECHECK SUMMARY" $OUT/racecheck.log | tail -2
gzip -f $OUT/t-wgmma.log; ls $OUT
