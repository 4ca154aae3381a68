#!/usr/bin/env bash
# Warp blur (new rung, blur_warp_*): GPU blur tests of the warp rung, compute-sanitizer on c3 r5 warp cases,
# bench-image shape classes (Auto = window rung, the warp rung forced, same run) once (the records),
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --test-threads=8 image::blur::blur_warp > $OUT/warp-tests.log 2>&1; tail -3 $OUT/warp-tests.log; grep -E "FAILED|panicked" $OUT/warp-tests.log | head -20
for tool in memcheck; do
  FERROTILE_REQUIRE_GPU=1 timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::image::blur::blur_warp::c3::r5 > $OUT/sanitizer-$tool.log 2>&1; echo "$tool rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/sanitizer-$tool.log | tail -2
done
export FERROTILE_BENCH_CLASSES_ONLY=1
for r in 1; do
  echo "=== run $r"
  if [ $r = 1 ]; then export FERROTILE_RESULTS=$OUT/results.jsonl; else unset FERROTILE_RESULTS; fi
  timeout 200 bundle/bin/bench-image > $OUT/image$r.log 2>&1; echo "rc=$?"; grep -E "blur" $OUT/image$r.log | awk -F'|' '{print $2,$3,$6,$7}'
done
unset FERROTILE_RESULTS
cd $OUT && tar czf rest.tgz sanitizer-memcheck.log warp-tests.log && rm -f sanitizer-*.log warp-tests.log; ls $OUT
