#!/usr/bin/env bash
# H200, the committed kernels: the odd shapes one dimension at a time with the bench's padded cases for every odd shape
# (the same product on operands whose rows need no staging, `C` padded or packed): the staging's share of each call.
set -u
mkdir -p $OUT/logs /tmp/new && tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
cd /tmp/new
ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 4096×4096×4091,bf16→bf16 4096×4099×4096,bf16→bf16 8192×8192×1024,bf16→bf16 8192×8192×1023"
FERROTILE_RESULTS=$OUT/logs/results.jsonl FERROTILE_BENCH_ONLY="$ONLY" timeout 300 bundle/bin/bench-gemm_tc > $OUT/logs/odd.log 2>&1; echo "bench rc=$?"
grep -E "vs aligned|padded|auto \(" $OUT/logs/odd.log | grep -v JSON | awk -F'|' '{print $3,$4,$5,$7}'
cd $OUT && tar czf logs.tgz logs && rm -rf logs
