#!/usr/bin/env bash
# The committed build (rung 11 E6144/E8192; Auto: flat for output rows <= 160 not multiples of 16, a few rows too):
# GPU tests (transpose, interop, sgemm: the GEMM stages transposed operands with the default transpose), sanitizer
# on the flat cases, the full transpose bench (records).
set -u
mkdir -p /tmp/t && tar xzf .gpu/new.tar.gz -C /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cd /tmp/t
for f in transpose interop sgemm; do
  FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --test-threads=8 $f > $OUT/tests-$f.log 2>&1; echo "tests $f rc=$?"; grep -E "^test result" $OUT/tests-$f.log; grep -E "FAILED|panicked" $OUT/tests-$f.log | head -10
done
for tool in memcheck racecheck; do
  FERROTILE_REQUIRE_GPU=1 timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::transpose::flat > $OUT/sanitizer-$tool.log 2>&1; echo "$tool rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/sanitizer-$tool.log | tail -2
done
FERROTILE_RESULTS=$OUT/results.jsonl timeout 380 bundle/bin/bench-transpose > $OUT/bench-transpose.log 2>&1; echo "bench rc=$?"
grep -E "default" $OUT/bench-transpose.log | grep -vE "n/a" | awk -F'|' '{printf "%-14s %-28s %s\n", $4, $2, $7}'
grep -E "^- |fastest" $OUT/bench-transpose.log
