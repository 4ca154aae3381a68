#!/usr/bin/env bash
# wgmma swapped 64x128 tiles (decode): bench decode rows (every tile forced + Auto, one call and back to back),
# GPU tests cuda::wgmma (all), memcheck on a swapped split-K case, ncu of Auto's decode kernel at 1x8192x8192.
set -u
mkdir -p /tmp/sw
tar xJf .gpu/new.tar.xz -C /tmp/sw || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/sw
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_ONLY="decode,bf16→bf16 4096×4096×4096" timeout 230 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/bench.log | awk -F'|' '{print $3,$4,$5,$7}' | head -60
FERROTILE_REQUIRE_GPU=1 timeout 220 bundle/bin/kernels --include-ignored --test-threads=12 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked|failed" $OUT/t-wgmma.log | head -10; grep -c "swap_64x128.* ok" $OUT/t-wgmma.log
FERROTILE_REQUIRE_GPU=1 timeout 50 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_swap_64x128::bias_gelu::45x70x600 > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/memcheck.log | tail -3
FERROTILE_BENCH_ONLY="1×8192×8192 decode" timeout 80 ncu -k regex:gemm_wgmma --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy bundle/bin/bench-gemm_tc > $OUT/ncu-decode.log 2>&1; echo "ncu rc=$?"
grep -E "gemm_wgmma|Duration|DRAM Through|Memory Through|Compute \(SM\)|Registers|Achieved Occ|Mem Busy|Max Bandwidth" $OUT/ncu-decode.log | head -20
gzip -f $OUT/t-wgmma.log; ls $OUT
