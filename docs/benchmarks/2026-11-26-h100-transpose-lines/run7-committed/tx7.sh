#!/usr/bin/env bash
# The committed build (rung 10 with its block-column count fixed, thin kernels as in run 5): GPU tests (transpose,
# interop, sgemm), sanitizer on the rung-10 cases, the bench (records).
set -u
mkdir -p /tmp/t && tar xzf .gpu/new.tar.gz -C /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cd /tmp/t
for f in transpose interop sgemm; do
  FERROTILE_REQUIRE_GPU=1 timeout 250 bundle/bin/kernels --include-ignored --test-threads=8 $f > $OUT/tests-$f.log 2>&1; echo "tests $f rc=$?"; grep -E "^test result" $OUT/tests-$f.log; grep -E "FAILED|panicked" $OUT/tests-$f.log | head -10
done
for tool in memcheck racecheck; do
  FERROTILE_REQUIRE_GPU=1 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::transpose::lines_w128 > $OUT/sanitizer-$tool.log 2>&1; echo "$tool rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/sanitizer-$tool.log | tail -2
done
FERROTILE_RESULTS=$OUT/results.jsonl timeout 500 bundle/bin/bench-transpose > $OUT/bench-transpose.log 2>&1; echo "bench rc=$?"
grep -E "transpose_thin|transpose_lines" $OUT/bench-transpose.log | grep -vE "n/a" | awk -F'|' '{printf "%-12s %-28s %s\n", $4, $2, $7}'
grep -E "^- " $OUT/bench-transpose.log
