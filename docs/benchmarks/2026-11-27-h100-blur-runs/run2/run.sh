#!/usr/bin/env bash
# Window blur, vertical phase without the masks inside the row and with the rows' stores at immediate offsets (new) against cdc16aa (old, bench-image only):
# GPU blur tests, compute-sanitizer on window cases, bench-image classes alternating new1 old1 new2 old2 (records of new1),
# ncu metrics of new and old c1.
set -u
mkdir -p /tmp/ab/new /tmp/ab/old
tar xJf .gpu/new.tar.xz -C /tmp/ab/new && tar xJf .gpu/old.tar.xz -C /tmp/ab/old || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
FERROTILE_REQUIRE_GPU=1 timeout 240 bundle/bin/kernels --include-ignored --test-threads=8 image::blur > $OUT/blur-tests.log 2>&1; tail -3 $OUT/blur-tests.log; grep -E "FAILED|panicked" $OUT/blur-tests.log | head -20
for tool in memcheck; do
  FERROTILE_REQUIRE_GPU=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::image::blur::blur_window::c3::r5 > $OUT/sanitizer-$tool.log 2>&1; echo "$tool rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/sanitizer-$tool.log | tail -2
done
export FERROTILE_BENCH_CLASSES_ONLY=1
for r in 1 2; do
  for v in new old; do
    echo "=== $v run $r"
    if [ $r$v = 1new ]; then export FERROTILE_RESULTS=$OUT/results.jsonl; else unset FERROTILE_RESULTS; fi
    ( cd /tmp/ab/$v && timeout 200 bundle/bin/bench-image > $OUT/image-$v$r.log 2>&1 ); grep -E "window|hslide" $OUT/image-$v$r.log | awk -F'|' '{print $2,$3,$6}' | paste - - - - -
  done
done
unset FERROTILE_RESULTS
S=smsp__average_warps_issue_stalled
M=""
for k in barrier long_scoreboard short_scoreboard mio_throttle lg_throttle wait math_pipe_throttle not_selected selected dispatch_stall no_instruction branch_resolving membar sleeping; do M="$M${S}_${k}_per_issue_active.ratio,"; done
M="${M}smsp__inst_executed.sum,sm__cycles_elapsed.max,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,gpu__time_duration.sum"
for v in new old; do
  ( cd /tmp/ab/$v && timeout 100 ncu --clock-control none -k regex:blur_window_c1 -c 1 --metrics "$M" bundle/bin/bench-image > $OUT/ncu_c1_$v.log 2>&1 )
  echo "=== ncu $v"; grep -vE "^==PROF==|^\s*$" $OUT/ncu_c1_$v.log | grep -E "ratio|sum|max|pct|registers|limit" | awk '{print $1, $NF}'
done
cd $OUT && tar czf rest.tgz image-new2.log image-old2.log ncu_c1_new.log ncu_c1_old.log sanitizer-memcheck.log && rm -f image-new2.log image-old2.log sanitizer-memcheck.log; ls $OUT
