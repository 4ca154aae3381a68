#!/usr/bin/env bash
# H200: Auto with the ping-pong epilogue counted as the cooperative tile's (PINGPONG_EPILOGUE_SHARE 1) and the tile
# allowed from 2 k-tiles (new, k2) against the committed Auto (old, k1), in turn: every tile at the short-k grid
# (FERROTILE_BENCH_TILES), and the bench's batched rows; GPU tests of the Auto path on the new build.
set -u
mkdir -p $OUT/logs
for b in k1 k2; do mkdir -p /tmp/$b && tar xJf .gpu/$b.tar.xz -C /tmp/$b || echo UNTAR $b FAILED; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
S="512x128x128x128,64x256x256x256,128x256x256x256,16x512x512x512,64x512x512x512,32x1024x1024x256,8x1024x1024x512,64x1024x1024x64t,256x256x1024x64t,128x512x512x64t,2000x3000x512,1000x4096x300,2048x1024x512,1024x1024x512,4096x4096x256,4096x4096x512,8192x8192x256,8192x8192x512,4096x14336x512,2048x2048x768,16384x4096x768,4096x4096x960,2048x2048x1024,4096x4096x1024,8192x8192x1024,2000x3001x512,5120x5120x4096"
B="×128×128×128,×127×127×127,×256×256×256,×255×255×255,×512×512×512,×511×511×511,×1024×1024×64,×256×1024×64,×255×1023×63"
for r in 1 2; do
  for b in k1 k2; do
    cd /tmp/$b
    FERROTILE_RESULTS=$OUT/logs/tiles-$b-$r.jsonl FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_TILES="$S" timeout 120 bundle/bin/bench-gemm_tc > $OUT/logs/tiles-$b-$r.log 2>&1; echo "tiles $b $r rc=$? t=$SECONDS"
    FERROTILE_RESULTS=$OUT/logs/batch-$b-$r.jsonl FERROTILE_BENCH_ONLY="$B" timeout 100 bundle/bin/bench-gemm_tc > $OUT/logs/batch-$b-$r.log 2>&1; echo "batch $b $r rc=$? t=$SECONDS"
  done
done
cd /tmp/k2
for f in cuda::mma batch gelu; do
  timeout 100 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator $f > $OUT/logs/t-${f//:/-}.log 2>&1; echo "test $f rc=$? t=$SECONDS"; tail -2 $OUT/logs/t-${f//:/-}.log
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
