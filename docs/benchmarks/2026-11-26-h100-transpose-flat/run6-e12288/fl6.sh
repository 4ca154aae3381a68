#!/usr/bin/env bash
# Rung 11 with a third chunk size (about 12288 elements: three 32-column units per input row for ny 128-190):
# the bench on output rows of 67-193 elements, twice (two rounds, to see the call-to-call spread).
set -u
mkdir -p /tmp/t && tar xzf .gpu/new.tar.gz -C /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cd /tmp/t
FERROTILE_REQUIRE_GPU=1 timeout 100 bundle/bin/kernels --include-ignored --test-threads=8 transpose::flat > $OUT/tests-flat.log 2>&1; echo "tests rc=$?"; grep -E "^test result|FAILED|panicked" $OUT/tests-flat.log | head -5
for round in 1 2; do
FERROTILE_BENCH_SHAPES=1048573x67,1048573x100,524287x131,489997x143,699051x150,422621x159,349529x193 FERROTILE_RESULTS=$OUT/results-$round.jsonl timeout 200 bundle/bin/bench-transpose > $OUT/bench-transpose-$round.log 2>&1; echo "bench $round rc=$?"
grep -E "transpose_lines_w128 |transpose_flat" $OUT/bench-transpose-$round.log | grep -vE "n/a" | awk -F'|' '{printf "%-14s %-28s %s\n", $4, $2, $7}'
done
