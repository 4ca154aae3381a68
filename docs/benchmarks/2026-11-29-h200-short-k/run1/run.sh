#!/usr/bin/env bash
# H200: every wgmma tile against Auto at short-k aligned shapes (fewer than 16 k-tiles of 64; batched, Bᵀ and single)
# and three at 16 k-tiles, plain and fused (FERROTILE_BENCH_TILES), two rounds. The committed Auto (PINGPONG_MIN_KTILES 16).
set -u
mkdir -p $OUT/logs
mkdir -p /tmp/k1 && tar xJf .gpu/k1.tar.xz -C /tmp/k1 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
cd /tmp/k1
S="512x128x128x128,64x256x256x256,128x256x256x256,16x512x512x512,64x512x512x512,32x1024x1024x256,8x1024x1024x512,64x1024x1024x64t,256x256x1024x64t,128x512x512x64t,2000x3000x512,1000x4096x300,2048x1024x512,1024x1024x512,4096x4096x256,4096x4096x512,8192x8192x256,8192x8192x512,4096x14336x512,2048x2048x768,16384x4096x768,4096x4096x960,2048x2048x1024,4096x4096x1024,8192x8192x1024"
for r in 1 2; do
  L=$OUT/logs/b-$r.log
  FERROTILE_RESULTS=$OUT/logs/results-$r.jsonl FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_TILES="$S" timeout 270 bundle/bin/bench-gemm_tc > $L 2>&1; echo "bench $r rc=$? t=$SECONDS"
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
