#!/usr/bin/env bash
# ncu of the first blur_warp_c1 and blur_window_c1 launches of bench-image (8192², r1; same bundle as run1),
# and the SASS source counters of blur_warp_c1.
set -u
mkdir -p /tmp/ab/new
[ -d /tmp/ab/new/bundle ] || tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
cd /tmp/ab/new
export FERROTILE_BENCH_CLASSES_ONLY=1
S=smsp__average_warps_issue_stalled
M=""
for k in barrier long_scoreboard short_scoreboard mio_throttle lg_throttle wait math_pipe_throttle not_selected selected dispatch_stall no_instruction branch_resolving; do M="$M${S}_${k}_per_issue_active.ratio,"; done
M="${M}smsp__inst_executed.sum,sm__cycles_elapsed.max,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size"
for k in blur_warp_c1 blur_window_c1; do
  timeout 100 ncu --clock-control none -k regex:$k -c 1 --metrics "$M" bundle/bin/bench-image > $OUT/ncu_$k.log 2>&1
  echo "=== ncu $k"; grep -vE "^==PROF==|^\s*$" $OUT/ncu_$k.log | grep -E "ratio|sum|max|pct|registers|limit|size" | awk '{print $1, $(NF-1), $NF}'
done
timeout 150 ncu --clock-control none -k regex:blur_warp_c1 -c 1 --section SourceCounters -o /tmp/warp_c1 bundle/bin/bench-image > $OUT/ncu_src.log 2>&1
ncu -i /tmp/warp_c1.ncu-rep --page source --csv --print-source sass > $OUT/warp_c1_sass.csv 2>&1; echo "sass rc=$? lines $(wc -l < $OUT/warp_c1_sass.csv)"
ls -la $OUT
