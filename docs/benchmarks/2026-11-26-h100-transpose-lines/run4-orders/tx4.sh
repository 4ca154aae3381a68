#!/usr/bin/env bash
# Rung 10's launch orders (block rows one after the other, or 4 / 16 / 256 at a time): GPU transpose tests,
# the transpose bench (records).
set -u
mkdir -p /tmp/t && tar xzf .gpu/new.tar.gz -C /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cd /tmp/t
FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --test-threads=8 transpose > $OUT/tests-transpose.log 2>&1; echo "tests rc=$?"; grep -E "^test result" $OUT/tests-transpose.log; grep -E "FAILED|panicked" $OUT/tests-transpose.log | head
FERROTILE_RESULTS=$OUT/results.jsonl timeout 500 bundle/bin/bench-transpose > $OUT/bench-transpose.log 2>&1; echo "bench rc=$?"
grep -E "transpose_lines|device-to-device" $OUT/bench-transpose.log | awk -F'|' '{printf "%s %s %s\n", $4, $2, $7}' | paste - - - - - | column -t
