#!/usr/bin/env bash
# H200: does a time-based warm-up before each timing remove the bias of the row timed right after cuBLAS (Auto's)?
# The same build, FERROTILE_BENCH_WARMUP_MS 0 (two calls, as before) and 150, alternating, two rounds.
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
mkdir -p /tmp/wu && tar xJf .gpu/wu.tar.xz -C /tmp/wu || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
cd /tmp/wu
S="4096x4096x4096,7168x7168x2048,8192x4096x4096,1536x1536x4096,2048x2048x2048"
for r in 1 2; do
  for w in 0 150; do
    FERROTILE_BENCH_WARMUP_MS=$w FERROTILE_RESULTS=$OUT/logs/w$w-$r.jsonl FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_TILES="$S" timeout 100 bundle/bin/bench-gemm_tc > $OUT/logs/w$w-$r.log 2>&1; echo "w$w $r rc=$? t=$SECONDS"
  done
done
