#!/usr/bin/env bash
# Rung 11 with 32 loads in flight per thread (transpose_flat_e8192_b32, a forced variant) against the committed chunk
# sizes on the short-row shapes: GPU transpose tests, memcheck on the flat cases, the bench twice, ncu of the new kernel.
set -u
mkdir -p /tmp/t && tar xJf .gpu/tr2.tar.xz -C /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cd /tmp/t
FERROTILE_REQUIRE_GPU=1 timeout 250 bundle/bin/kernels --include-ignored --test-threads=8 transpose > $OUT/tests-transpose.log 2>&1; echo "tests rc=$?"; grep -E "^test result" $OUT/tests-transpose.log; grep -E "FAILED|panicked" $OUT/tests-transpose.log | head -10
FERROTILE_REQUIRE_GPU=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::transpose::flat > $OUT/sanitizer-memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/sanitizer-memcheck.log | tail -2
for r in 1 2; do
  if [ $r = 1 ]; then export FERROTILE_RESULTS=$OUT/results.jsonl; else unset FERROTILE_RESULTS; fi
  FERROTILE_BENCH_SHAPES=1048573x67,1048573x68,524287x131,699051x150,262147x257,4194304x7,2097143x33 timeout 200 bundle/bin/bench-transpose > $OUT/bench-transpose$r.log 2>&1; echo "bench $r rc=$?"
  grep -E "transpose_flat|copy" $OUT/bench-transpose$r.log | grep -v "n/a" | awk -F'|' '{printf "%-28s %-14s %s\n", $2, $4, $7}'
done
unset FERROTILE_RESULTS
M=dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,launch__occupancy_limit_registers,launch__registers_per_thread
for s in "524287x131 transpose_flat_e8192_b32" "524287x131 transpose_flat_e8192"; do
  set -- $s
  FERROTILE_BENCH_SHAPES=$1 timeout 120 ncu -k regex:"^$2\$" -c 1 --metrics $M bundle/bin/bench-transpose > $OUT/ncu-$1-$2.log 2>&1; echo "ncu $1 $2 rc=$?"
  grep -vE "^==PROF==|^\s*$" $OUT/ncu-$1-$2.log | grep -E "dram__|lts__|sm__warps|smsp__|gpu__time|launch__" | awk '{print $1, $NF}'
done
