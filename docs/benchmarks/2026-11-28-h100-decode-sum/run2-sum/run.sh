#!/usr/bin/env bash
# Decode tail: split_k_sum loops over parts with every register group inside (one round trip per part, not per
# group and part). GPU tests wgmma + mma, memcheck on split fused cases, decode rows (+ split 4/8 on 128x128),
# ncu per-SM active cycles, main rows.
set -u
mkdir -p /tmp/dm
tar xJf .gpu/new.tar.xz -C /tmp/dm || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/dm
show() { grep -E "$2" $1 | grep -v JSON | awk -F'|' '{print $3,$4,$5,$7}'; }
export FERROTILE_BENCH_BACK_TO_BACK=1
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_ONLY="decode" timeout 160 bundle/bin/bench-gemm_tc > $OUT/decode1.log 2>&1; echo "=== decode rc=$?"; show $OUT/decode1.log decode
M="gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_elapsed.max,launch__grid_size"
FERROTILE_BENCH_BACK_TO_BACK= FERROTILE_BENCH_ONLY="1×8192×8192 decode" timeout 50 ncu --clock-control none -k regex:gemm_wgmma_bf16_bf16_nn_128x128 -c 2 --metrics $M bundle/bin/bench-gemm_tc > $OUT/ncu-auto.log 2>&1; echo "ncu rc=$?"
grep -E "grid_size|duration|dram__|cycles" $OUT/ncu-auto.log | head -14
for f in cuda::wgmma cuda::mma; do
  FERROTILE_REQUIRE_GPU=1 timeout $([ $f = cuda::wgmma ] && echo 190 || echo 90) bundle/bin/kernels --include-ignored --test-threads=8 $f > $OUT/t-$f.log 2>&1; echo "$f rc=$?"
  grep "test result" $OUT/t-$f.log; grep -E "FAILED|panicked|failed" $OUT/t-$f.log | head -10
done
FERROTILE_REQUIRE_GPU=1 timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x128::bias_gelu::45x7 > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/memcheck.log | tail -3
FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×1024" timeout 50 bundle/bin/bench-gemm_tc > $OUT/main.log 2>&1; echo "=== main rc=$?"; show $OUT/main.log "^\| bf16" | grep -v "in turn" | head -12
cd $OUT && gzip -f t-*.log; ls $OUT
