#!/usr/bin/env bash
# H200: the new Auto (k2: ping-pong epilogue counted as the cooperative tile's, the tile from 2 k-tiles) against every
# tile forced at the short-k grid (FERROTILE_BENCH_TILES), two rounds; GPU tests of the fused cases. (Run 2's tile rounds
# were lost: its logs did not come back.)
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
mkdir -p /tmp/k2 && tar xJf .gpu/k2.tar.xz -C /tmp/k2 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
S="512x128x128x128,64x256x256x256,128x256x256x256,16x512x512x512,64x512x512x512,32x1024x1024x256,8x1024x1024x512,64x1024x1024x64t,256x256x1024x64t,128x512x512x64t,2000x3000x512,1000x4096x300,2048x1024x512,1024x1024x512,4096x4096x256,4096x4096x512,8192x8192x256,8192x8192x512,4096x14336x512,2048x2048x768,16384x4096x768,4096x4096x960,2048x2048x1024,4096x4096x1024,8192x8192x1024,2000x3001x512,5120x5120x4096"
cd /tmp/k2
for r in 1 2; do
  FERROTILE_RESULTS=$OUT/logs/tiles-$r.jsonl FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_TILES="$S" timeout 90 bundle/bin/bench-gemm_tc > $OUT/logs/tiles-$r.log 2>&1; echo "tiles $r rc=$? t=$SECONDS"
done
timeout 60 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator gelu > $OUT/logs/t-gelu.log 2>&1; echo "test gelu rc=$? t=$SECONDS"; tail -2 $OUT/logs/t-gelu.log
