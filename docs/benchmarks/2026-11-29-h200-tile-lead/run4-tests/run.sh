#!/usr/bin/env bash
# H200, the committed build (WIDE_TILE_SPEEDUP 1.1): the GPU cases that run Auto on the tensor cores.
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
mkdir -p /tmp/t3 && tar xJf .gpu/t3.tar.xz -C /tmp/t3 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
cd /tmp/t3
for f in cuda::mma batch gelu cuda::wgmma::auto; do
  timeout 150 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator $f > $OUT/logs/t-${f//:/_}.log 2>&1; echo "$f rc=$? t=$SECONDS"; tail -1 $OUT/logs/t-${f//:/_}.log
done
