#!/usr/bin/env bash
# H200: split-K sum taking the swapped tile's parts two at a time (new) against the committed kernels (old):
# GPU tests of the swapped tile, then decode with forced splits 2, 4, 8 (old, new, old, new).
set -u
mkdir -p /tmp/old /tmp/new
tar xJf .gpu/prof.tar.xz -C /tmp/old || echo UNTAR OLD FAILED
tar xJf .gpu/sum.tar.xz -C /tmp/new || echo UNTAR NEW FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/new
timeout 100 bundle/bin/kernels wgmma_swap_64x128 > $OUT/tests-swap.log 2>&1; echo "=== tests rc=$?"; grep -E "test result|FAILED|panicked" $OUT/tests-swap.log | head -8
export FERROTILE_BENCH_ONLY="1×8192×8192 decode,64×8192×8192 decode" FERROTILE_BENCH_DECODE_SPLITS=2,4,8 FERROTILE_BENCH_DECODE_SPLITS_ONLY=1
for r in 1 2; do
  for v in old new; do
    echo "=== $v round $r"
    if [ $r$v = 1new ]; then export FERROTILE_RESULTS=$OUT/results.jsonl; else unset FERROTILE_RESULTS; fi
    ( cd /tmp/$v && timeout 60 bundle/bin/bench-gemm_tc > $OUT/bench-$v$r.log 2>&1 ); grep -E "swap|copy" $OUT/bench-$v$r.log | awk -F'|' '{print $3,$4,$5,$7}'
  done
done
