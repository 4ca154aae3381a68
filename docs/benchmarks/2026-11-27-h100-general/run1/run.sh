#!/usr/bin/env bash
# General-load SGEMM kernels (sgemm_general_*): the shape classes and medium shapes (Auto vs cuBLAS, with the pre-transposed comparison rows), GPU tests cuda::sgemm, memcheck + racecheck on the general cases.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_CLASSES=only timeout 280 bundle/bin/bench-sgemm > $OUT/sgemm.log 2>&1; echo "=== rc=$?"
grep -E "^\| " $OUT/sgemm.log | awk -F'|' '{print $2,$3,$4,$5,$6,$7,$8,$9}' | head -70
unset FERROTILE_RESULTS
FERROTILE_REQUIRE_GPU=1 timeout 150 bundle/bin/kernels --include-ignored --test-threads=8 cuda::sgemm > $OUT/t-sgemm.log 2>&1; echo "sgemm rc=$?"; grep "test result" $OUT/t-sgemm.log; grep -E "FAILED|panicked" $OUT/t-sgemm.log | head -10
for tool in memcheck racecheck; do
  FERROTILE_REQUIRE_GPU=1 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::sgemm::general > $OUT/sanitizer-$tool.log 2>&1; echo "$tool rc=$?"; grep -E "test result|ERROR SUMMARY|RACECHECK SUMMARY" $OUT/sanitizer-$tool.log | tail -3
done
cd $OUT && tar czf rest.tgz t-*.log && rm -f t-*.log; ls $OUT
