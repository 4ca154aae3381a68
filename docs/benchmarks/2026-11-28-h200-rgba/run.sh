#!/usr/bin/env bash
# H200: RGBA on the sliding-sums rung (blur_hslide_rgba_r1-3) against the committed build (window rung for RGBA), image
# classes alternating old/new twice; GPU tests of the sliding-sums rung; memcheck on RGBA radius-3 cases.
set -u
mkdir -p /tmp/old /tmp/new
tar xJf .gpu/classes.tar.xz -C /tmp/old || echo UNTAR OLD FAILED
tar xJf .gpu/rgba.tar.xz -C /tmp/new || echo UNTAR NEW FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
export FERROTILE_BENCH_CLASSES_ONLY=1
for r in 1 2; do
  for v in old new; do
    echo "=== $v round $r"
    if [ $r$v = 1new ]; then export FERROTILE_RESULTS=$OUT/results.jsonl; else unset FERROTILE_RESULTS; fi
    ( cd /tmp/$v && timeout 120 bundle/bin/bench-image > $OUT/image-$v$r.log 2>&1 ); grep -E "c4|copy \(4" $OUT/image-$v$r.log | awk -F'|' '{print $2,$3,$4,$5}'
  done
done
unset FERROTILE_RESULTS FERROTILE_BENCH_CLASSES_ONLY
cd /tmp/new
FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --test-threads=8 cuda::image::blur > $OUT/tests-blur.log 2>&1; echo "tests rc=$?"; grep -E "^test result" $OUT/tests-blur.log; grep -E "FAILED|panicked" $OUT/tests-blur.log | head -10
grep -c "blur_hslide::c4.* ok" $OUT/tests-blur.log
FERROTILE_REQUIRE_GPU=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::image::blur::blur_hslide::c4::r3::16 > $OUT/sanitizer-memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/sanitizer-memcheck.log | tail -2
cd $OUT && tar czf rest.tgz image-old2.log image-new2.log tests-blur.log && rm -f image-old2.log image-new2.log tests-blur.log; ls $OUT
