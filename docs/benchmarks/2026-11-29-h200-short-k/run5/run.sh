#!/usr/bin/env bash
# H200: held-out check of the fitted Auto (k3's estimate, unchanged since): every tile forced against Auto at 15 aligned
# bf16 -> bf16 shapes not in the fit, plain and fused, two rounds.
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
mkdir -p /tmp/k3 && tar xJf .gpu/k3.tar.xz -C /tmp/k3 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
S="4096x4096x128,3072x3072x384,6144x6144x512,12288x4096x256,1536x1536x640,2048x8192x128,1024x4096x896,8192x2048x320,96x256x256x512,32x512x512x128,256x128x256x128,16x1024x1024x384,5000x5000x700,3000x2000x1000,4096x4096x1536"
cd /tmp/k3
for r in 1 2; do
  FERROTILE_RESULTS=$OUT/logs/held-$r.jsonl FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_TILES="$S" timeout 150 bundle/bin/bench-gemm_tc > $OUT/logs/held-$r.log 2>&1; echo "held $r rc=$? t=$SECONDS"
done
