#!/usr/bin/env bash
# H200: the window blur with 6 warps a block (batches of 6 rows; every warp owns a column word in the vertical phase)
# at 6 blocks per SM (56 registers, w6b6) and at 5 (64 registers, w6b5), against the committed build (8 warps, 4 blocks,
# 64 registers: old); image classes in turn, two rounds; GPU tests of the blur for both; memcheck on c3 r5 window cases;
# ncu of blur_window_c1 for the three.
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
for b in old 6b6 6b5; do mkdir -p /tmp/$b && tar xJf .gpu/w$b.tar.xz -C /tmp/$b || echo UNTAR FAILED $b; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/logs/gpu.txt
export FERROTILE_BENCH_CLASSES_ONLY=1
for r in 1 2; do
  for v in old 6b6 6b5; do
    export FERROTILE_RESULTS=$OUT/logs/results-$v$r.jsonl
    ( cd /tmp/$v && timeout 80 bundle/bin/bench-image > $OUT/logs/image-$v$r.log 2>&1 ); echo "bench $v$r rc=$? t=$SECONDS"
    grep -E "window" $OUT/logs/image-$v$r.log | awk -F'|' '{print $2,$3,$4,$6}' | head -40
  done
done
unset FERROTILE_RESULTS FERROTILE_BENCH_CLASSES_ONLY
for v in 6b6 6b5; do
  ( cd /tmp/$v && FERROTILE_REQUIRE_GPU=1 timeout 70 bundle/bin/kernels --include-ignored --test-threads=16 cuda::image::blur > $OUT/logs/tests-blur-$v.log 2>&1 ); echo "tests $v rc=$? t=$SECONDS"; grep -E "^test result" $OUT/logs/tests-blur-$v.log; grep -E "FAILED|panicked" $OUT/logs/tests-blur-$v.log | head -10
done
( cd /tmp/6b6 && FERROTILE_REQUIRE_GPU=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::image::blur::blur_window::c3::r5:: > $OUT/logs/memcheck.log 2>&1 ); echo "memcheck rc=$? t=$SECONDS"; grep -E "test result|ERROR SUMMARY" $OUT/logs/memcheck.log | tail -2
for v in old 6b6 6b5; do
  ( cd /tmp/$v && FERROTILE_BENCH_CLASSES_ONLY=1 timeout 40 ncu --metrics sm__inst_executed.sum,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active -k regex:blur_window_c1 -c 2 bundle/bin/bench-image > $OUT/logs/ncu-$v.log 2>&1 ); echo "ncu $v rc=$? t=$SECONDS"
  grep -E "blur_window_c1|Block Size|Grid Size|inst_executed|duration|issue_active|warps_active" $OUT/logs/ncu-$v.log | head -16
done
