#!/usr/bin/env bash
# H200: the whole gemm_tc bench, ten-call rows on, the build of run 2 (same bundle).
set -u
mkdir -p /tmp/c3 && tar xJf .gpu/c2.tar.xz -C /tmp/c3 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/c3
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 timeout 545 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| (bf16|f16|tf32)" $OUT/bench.log | grep -E "auto \(|cuBLAS \||back to back|decode|vs aligned|fused" | grep -v "JSON" | awk -F'|' '{print $2,"|",$3,"|",$4,"|",$7}' | tail -100
