#!/usr/bin/env bash
# H200: the narrow swapped tile (wgmma_swap_16x128, Auto for m <= 16). The decode rows (Auto; the 64-wide swapped tile
# forced, the committed Auto's choice there), ten back to back; ncu of the narrow tile at 1x8192^2 (L2 -> SM bytes,
# active cycles); GPU tests of both swapped tiles; compute-sanitizer on the narrow tile's fused cases.
set -u
mkdir -p /tmp/new && tar xJf .gpu/head.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
mkdir -p $OUT/logs
cd /tmp/new
FERROTILE_RESULTS=$OUT/logs/results.jsonl FERROTILE_BENCH_ONLY=decode FERROTILE_BENCH_BACK_TO_BACK=1 timeout 250 bundle/bin/bench-gemm_tc > $OUT/logs/bench.log 2>&1; echo "bench rc=$?"
grep "decode\|host time" $OUT/logs/bench.log | grep -v JSON | grep -v "128x128\|128x256\|mma_128\|plain launch" | cut -c1-150
M=dram__bytes_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_sector_hit_rate.pct,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max,smsp__inst_executed.sum,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
FERROTILE_BENCH_ONLY="1×8192×8192 decode" timeout 60 ncu --clock-control none -k regex:sw16 -c 1 --metrics $M bundle/bin/bench-gemm_tc > $OUT/logs/ncu-sw16.txt 2>&1; echo "ncu sw16 rc=$?"
grep -E "^  [a-z_]|__" $OUT/logs/ncu-sw16.txt | head -14
FERROTILE_REQUIRE_GPU=1 timeout 110 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator wgmma_swap > $OUT/logs/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/logs/t-wgmma.log; echo "ok lines: $(grep -c '\.\.\. ok' $OUT/logs/t-wgmma.log), swap_16 ok: $(grep 'swap_16' $OUT/logs/t-wgmma.log | grep -c '\.\.\. ok')"; grep -E "FAILED|panicked" $OUT/logs/t-wgmma.log | head -5
for tool in memcheck racecheck; do
  FERROTILE_REQUIRE_GPU=1 timeout 60 compute-sanitizer --tool $tool bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_swap_16x128::bias_gelu > $OUT/logs/san-$tool.log 2>&1; echo "$tool rc=$?"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result" $OUT/logs/san-$tool.log | head -3
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
