#!/usr/bin/env bash
# Rung 11 with chunks sized to whole load units (E6144, E8192): GPU tests, sanitizer, bench on short rows.
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
FERROTILE_BENCH_SHAPES=1048573x67,1048573x68,1048573x100,524287x131,699051x150,349529x193,262147x257,131071x509,4194304x7,1048576x31,2097143x33,1048576x8,4194304x33 FERROTILE_RESULTS=$OUT/results.jsonl timeout 300 bundle/bin/bench-transpose > $OUT/bench-transpose.log 2>&1; echo "bench rc=$?"
grep -E "transpose_thin|transpose_lines|transpose_flat|transpose_vec4_t64_b256 |transpose_vec4r" $OUT/bench-transpose.log | grep -vE "n/a" | awk -F'|' '{printf "%-14s %-28s %s\n", $4, $2, $7}'
grep -E "^- |fastest" $OUT/bench-transpose.log
