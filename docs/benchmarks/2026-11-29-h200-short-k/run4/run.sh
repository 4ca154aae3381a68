#!/usr/bin/env bash
# H200: the new Auto (k3 = k2's estimate; the bench's tile rows for more type pairs) at short-k shapes for bf16 -> f32
# and f16 -> f16, every tile forced, plain and fused, two rounds (FERROTILE_BENCH_TILES_TYPES).
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
mkdir -p /tmp/k3 && tar xJf .gpu/k3.tar.xz -C /tmp/k3 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
S="512x128x128x128,64x256x256x256,64x512x512x512,32x1024x1024x256,2000x3000x512,4096x4096x256,4096x4096x512,8192x8192x256,8192x8192x512,16384x4096x768,4096x4096x960,2048x2048x1024,4096x4096x4096,8192x8192x1024"
cd /tmp/k3
for r in 1 2; do
  FERROTILE_RESULTS=$OUT/logs/types-$r.jsonl FERROTILE_BENCH_TILES_TYPES=bf16-f32,f16 FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_TILES="$S" timeout 150 bundle/bin/bench-gemm_tc > $OUT/logs/types-$r.log 2>&1; echo "types $r rc=$? t=$SECONDS"
done
