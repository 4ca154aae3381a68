#!/usr/bin/env bash
# H200: issue 15's f32 GEMM shape classes, the build before this stop's staging changes (old, f61f884) and the
# committed one (new: the staging copy by warps, kept staging buffers), one round each, cut at 100 s.
set -u
for b in sgold sgnew; do mkdir -p /tmp/$b && tar xJf .gpu/$b.tar.xz -C /tmp/$b || echo UNTAR FAILED $b; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
for b in sgold sgnew; do
  cd /tmp/$b
  FERROTILE_RESULTS=$OUT/results-$b.jsonl FERROTILE_BENCH_CLASSES=only timeout 100 bundle/bin/bench-sgemm > $OUT/sgemm-$b.log 2>&1; echo "=== $b rc=$?"
  grep -E "^\| " $OUT/sgemm-$b.log | grep -v "timing only" | grep -v "forced |" | grep -E "odd|transposed|777|1023" | awk -F'|' '{print $2,$3,$4,$5,$6,$8}' | head -20
done
