#!/usr/bin/env bash
# H200: a bf16 output's GELU with its tanh in f16 pairs (tanh.approx.f16x2). GPU gelu cases (all engines), the
# epilogue rows of the last build (old: 9179778's kernels but the clustered tile's .release.cluster) and of the new
# one at 4096^3 and 8192x8192x1024, twice each in turn of builds, then the new one at 8192^3.
set -u
mkdir -p /tmp/old /tmp/new
tar xJf .gpu/old.tar.xz -C /tmp/old || echo UNTAR OLD FAILED
tar xJf .gpu/h2.tar.xz -C /tmp/new || echo UNTAR NEW FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
mkdir -p $OUT/logs
cd /tmp/new
FERROTILE_REQUIRE_GPU=1 timeout 100 bundle/bin/kernels --include-ignored --test-threads=16 gelu > $OUT/logs/t-gelu.log 2>&1; echo "gelu rc=$?"
grep "test result" $OUT/logs/t-gelu.log; grep -E "FAILED|panicked" $OUT/logs/t-gelu.log | head -8
export FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096 epilogue,bf16→bf16 8192×8192×1024 epilogue"
for round in 1 2; do
  for v in old new; do
    ( cd /tmp/$v && FERROTILE_RESULTS=$OUT/results-$v.jsonl timeout 100 bundle/bin/bench-gemm_tc > $OUT/logs/bench-$v-$round.log 2>&1 ); echo "$v $round rc=$?"
  done
done
( cd /tmp/new && FERROTILE_RESULTS=$OUT/results-new.jsonl FERROTILE_BENCH_ONLY="bf16→bf16 8192×8192×8192 epilogue" timeout 100 bundle/bin/bench-gemm_tc > $OUT/logs/bench-new-8192.log 2>&1 ); echo "8192 rc=$?"
cd $OUT
for f in logs/bench-*.log; do echo "== $f"; grep -E "^\| bf16|^\(fused" $f | grep -v "wgmma_pp\|wgmma_128x256" | awk -F'|' '{print $3,$4,$5,$7,$8}' | sed 's/median of 7 in turn/in turn/; s/fused bias + GELU/fused/'; done
tar czf logs.tgz logs && rm -rf logs
