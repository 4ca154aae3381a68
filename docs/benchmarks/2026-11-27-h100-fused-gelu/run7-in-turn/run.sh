#!/usr/bin/env bash
# The committed kernels (f9dd560), the bench's epilogue rows with the plain and fused calls also timed in turn,
# seven times each, medians compared (records of round 1); two rounds.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
for r in 1 2; do
  echo "=== round $r"
  if [ $r = 1 ]; then export FERROTILE_RESULTS=$OUT/results.jsonl; else unset FERROTILE_RESULTS; fi
  FERROTILE_BENCH_ONLY="epilogue" timeout 280 bundle/bin/bench-gemm_tc > $OUT/gemm_tc-$r.log 2>&1; echo "rc=$?"
  grep -E "^\| (bf16|f16)|pairs" $OUT/gemm_tc-$r.log | grep -E "fused|plain|separate|pairs" | grep -v "wgmma_" | awk -F'|' '{print $2,$3,$4,$5,$7,$8}'
done
ls $OUT
