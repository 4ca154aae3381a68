#!/usr/bin/env bash
# H200, build n2 (WIDE_TILE_SPEEDUP 1.1): the gemm_tc epilogue rows (plain / fused in turn), two rounds; then the f32
# SGEMM's warptile configurations and Auto's class rows at medium shapes (is its tile table stale on the H200?).
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
mkdir -p /tmp/n2 && tar xJf .gpu/n2.tar.xz -C /tmp/n2 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
cd /tmp/n2
for r in 1 2; do
  FERROTILE_RESULTS=$OUT/logs/e-$r.jsonl FERROTILE_BENCH_ONLY=epilogue timeout 130 bundle/bin/bench-gemm_tc > $OUT/logs/e-$r.log 2>&1; echo "e $r rc=$? t=$SECONDS"
done
Z="1000,1500,1536,1024x1024x16384,2000x600x3000,777x1031x2053,1200x1100x1000"
FERROTILE_RESULTS=$OUT/logs/s.jsonl FERROTILE_BENCH_SIZES="$Z" FERROTILE_BENCH_ONLY=warptile FERROTILE_BENCH_CLASS_SHAPES="$Z" timeout 220 bundle/bin/bench-sgemm > $OUT/logs/s.log 2>&1; echo "s rc=$? t=$SECONDS"
