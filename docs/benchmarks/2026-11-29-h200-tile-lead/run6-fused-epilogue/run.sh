#!/usr/bin/env bash
# H200: FUSED_EPILOGUE_KTILES 5 (f5) against 12 (f12, the committed build; both WIDE_TILE_SPEEDUP 1.1), every tile
# forced, two rounds alternating builds; nine shapes held out of the fit where the fused pick differs, three fitted
# ones, two where it does not.
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
for b in f12 f5; do mkdir -p /tmp/$b && tar xJf .gpu/$b.tar.xz -C /tmp/$b || echo UNTAR $b FAILED; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
S="6144x4096x4096,3072x8192x4096,6144x6144x4096,2048x4096x6144,3584x3584x4096,1024x16384x4096,2048x2048x4096,1024x8192x4096,4608x4608x4096,4096x4096x4096,2048x2048x2048,8192x2048x1000,4096x4096x3072,8192x8192x1024"
for r in 1 2; do
  for b in f12 f5; do
    cd /tmp/$b
    FERROTILE_RESULTS=$OUT/logs/a-$b-$r.jsonl FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_TILES="$S" timeout 110 bundle/bin/bench-gemm_tc > $OUT/logs/a-$b-$r.log 2>&1; echo "a $b $r rc=$? t=$SECONDS"
  done
done
