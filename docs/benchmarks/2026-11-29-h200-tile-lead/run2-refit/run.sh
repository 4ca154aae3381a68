#!/usr/bin/env bash
# H200: Auto with WIDE_TILE_SPEEDUP 1.1 (w11) against 1.25 (w25, the committed build), every tile forced too,
# two rounds alternating builds (bf16 -> bf16), then one round of bf16 -> f32 and f16 -> f16 on a subset.
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
for b in w25 w11; do mkdir -p /tmp/$b && tar xJf .gpu/$b.tar.xz -C /tmp/$b || echo UNTAR $b FAILED; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
S="1792x1792x2048,3584x3584x2048,7168x7168x2048,6144x2048x4096,3072x3072x6144,10240x4096x2048,1792x4096x8192,1280x2560x3072,1536x1536x4096,4096x4096x4096,4096x14336x4096,5120x5120x4096,2048x2048x2048,8192x4096x4096"
T="3584x3584x2048,3072x3072x6144,1792x4096x8192,1536x1536x4096,4096x4096x4096,5120x5120x4096"
for r in 1 2; do
  for b in w25 w11; do
    cd /tmp/$b
    FERROTILE_RESULTS=$OUT/logs/a-$b-$r.jsonl FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_TILES="$S" timeout 110 bundle/bin/bench-gemm_tc > $OUT/logs/a-$b-$r.log 2>&1; echo "a $b $r rc=$? t=$SECONDS"
  done
done
for b in w25 w11; do
  cd /tmp/$b
  FERROTILE_RESULTS=$OUT/logs/t-$b.jsonl FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_TILES_TYPES=bf16-f32,f16 FERROTILE_BENCH_TILES="$T" timeout 80 bundle/bin/bench-gemm_tc > $OUT/logs/t-$b.log 2>&1; echo "t $b rc=$? t=$SECONDS"
done
