#!/usr/bin/env bash
# Rung 11 as a table (E4096, E8192): GPU tests (transpose, interop), sanitizer on the flat cases, the bench on short-row
# and wide thin shapes, ncu of both chunk sizes on 1048573x67 and of E4096 on 524287x131.
set -u
mkdir -p /tmp/t && tar xzf .gpu/new.tar.gz -C /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cd /tmp/t
for f in transpose interop; do
  FERROTILE_REQUIRE_GPU=1 timeout 250 bundle/bin/kernels --include-ignored --test-threads=8 $f > $OUT/tests-$f.log 2>&1; echo "tests $f rc=$?"; grep -E "^test result" $OUT/tests-$f.log; grep -E "FAILED|panicked" $OUT/tests-$f.log | head -10
done
for tool in memcheck racecheck; do
  FERROTILE_REQUIRE_GPU=1 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::transpose::flat > $OUT/sanitizer-$tool.log 2>&1; echo "$tool rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/sanitizer-$tool.log | tail -2
done
FERROTILE_BENCH_SHAPES=1048573x67,1048573x68,524287x131,349529x193,262147x257,131071x509,4194304x7,4194301x3,1048576x31,2097143x33,1048576x8 FERROTILE_RESULTS=$OUT/results.jsonl timeout 300 bundle/bin/bench-transpose > $OUT/bench-transpose.log 2>&1; echo "bench rc=$?"
grep -E "transpose_thin|transpose_lines|transpose_flat|transpose_vec4_t64_b256 |transpose_vec4r" $OUT/bench-transpose.log | grep -vE "n/a" | awk -F'|' '{printf "%-14s %-28s %s\n", $4, $2, $7}'
grep -E "^- |fastest" $OUT/bench-transpose.log
M=dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__average_warp_latency_issue_stalled_barrier,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum
for s in "1048573x67 transpose_flat_e4096" "1048573x67 transpose_flat_e8192" "524287x131 transpose_flat_e4096"; do
  set -- $s
  FERROTILE_BENCH_SHAPES=$1 timeout 100 ncu -k regex:"^$2\$" -c 1 --metrics $M bundle/bin/bench-transpose > $OUT/ncu-$1-$2.log 2>&1; echo "ncu $1 $2 rc=$?"
  grep -E "dram__|lts__|sm__warps|gpu__time|smsp__" $OUT/ncu-$1-$2.log
done
