#!/usr/bin/env bash
# H200: the fitted Auto (k3's estimate) against every tile forced at 13 aligned bf16 -> bf16 shapes of k = 1024 to
# 4096 (long k, where the 128 x 256 tile and the ping-pong tile meet), plain and fused, two rounds.
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
mkdir -p /tmp/k3 && tar xJf .gpu/k3.tar.xz -C /tmp/k3 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
S="3072x3072x2048,4096x4096x2048,4096x4096x3072,6144x6144x1024,6144x6144x2048,8192x8192x2048,4096x14336x2048,2048x8192x4096,1536x1536x4096,5120x5120x2048,3000x3000x3000,8192x4096x4096,2048x2048x3072"
cd /tmp/k3
for r in 1 2; do
  FERROTILE_RESULTS=$OUT/logs/long-$r.jsonl FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_TILES="$S" timeout 200 bundle/bin/bench-gemm_tc > $OUT/logs/long-$r.log 2>&1; echo "long $r rc=$? t=$SECONDS"
done
