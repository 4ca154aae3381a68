#!/usr/bin/env bash
# H200: issue 15's shape classes with the committed build: f32 GEMM classes (Auto vs cuBLAS SGEMM) and the image
# classes (blur radius 1-32, 1/3/4 channels, grayscale, vector add; vs a copy), one round each.
set -u
mkdir -p /tmp/c && tar xJf .gpu/classes.tar.xz -C /tmp/c || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/c
FERROTILE_RESULTS=$OUT/results-sgemm.jsonl FERROTILE_BENCH_CLASSES=only timeout 280 bundle/bin/bench-sgemm > $OUT/sgemm.log 2>&1; echo "=== sgemm rc=$?"
grep -E "^\| " $OUT/sgemm.log | grep -v "timing only" | grep -v "forced |" | awk -F'|' '{print $2,$3,$4,$5,$6,$7,$8,$9}' | head -45
FERROTILE_RESULTS=$OUT/results-image.jsonl FERROTILE_BENCH_CLASSES_ONLY=1 timeout 250 bundle/bin/bench-image > $OUT/image.log 2>&1; echo "=== image rc=$?"
grep -E "^\| " $OUT/image.log | awk -F'|' '{print $2,$3,$4,$6}' | head -60
