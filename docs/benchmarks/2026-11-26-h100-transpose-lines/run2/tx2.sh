#!/usr/bin/env bash
# Transpose bench with the moderately thin odd shapes (rung 10 against rung 7), records.
set -u
mkdir -p /tmp/t && tar xzf .gpu/new.tar.gz -C /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cd /tmp/t
FERROTILE_RESULTS=$OUT/results.jsonl timeout 500 bundle/bin/bench-transpose > $OUT/bench-transpose.log 2>&1; echo "bench rc=$?"
grep -E "transpose_lines|transpose_vec4r|transpose_smem_pad_t64 |device-to-device" $OUT/bench-transpose.log | grep -E "67|131|257" 
grep -E "^- " $OUT/bench-transpose.log
