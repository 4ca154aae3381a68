#!/usr/bin/env bash
# H200: the cooperative tiles' consumer lead (first consumer k-tiles ahead of the second into each tile, its
# epilogue under the other's k-loop; the bias copied by the second consumer). Lead probe 0..3 on 128x256 and
# 128x128 at 4096^3, 8192x8192x1024, 8192^3 (plain and fused in turn); the epilogue rows (Auto, default lead 2)
# of the new build and of the last build (old) at 4096^3 and 8192x8192x1024; GPU tests cuda::wgmma;
# compute-sanitizer racecheck and synccheck on the 128x256 and 128x128 bias_gelu cases.
set -u
mkdir -p /tmp/old /tmp/new
tar xJf .gpu/auto.tar.xz -C /tmp/old || echo UNTAR OLD FAILED
tar xJf .gpu/lead.tar.xz -C /tmp/new || echo UNTAR NEW FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
mkdir -p $OUT/logs
cd /tmp/new
FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --test-threads=16 cuda::wgmma > $OUT/logs/t-wgmma.log 2>&1; echo "wgmma rc=$?"
for tool in racecheck synccheck; do
  for f in cuda::wgmma::bf16_bf16::nn::wgmma_128x256::bias_gelu cuda::wgmma::bf16_f32::nn::wgmma_128x128::bias_gelu; do
    FERROTILE_REQUIRE_GPU=1 timeout 60 compute-sanitizer --tool $tool bundle/bin/kernels --include-ignored --test-threads=1 $f > $OUT/logs/san-$tool-${f##*::wgmma_}.log 2>&1; echo "$tool $f rc=$?"
  done
done
export FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096 epilogue,bf16→bf16 8192×8192×1024 epilogue"
( cd /tmp/old && timeout 80 bundle/bin/bench-gemm_tc > $OUT/logs/bench-old.log 2>&1 ); echo "old rc=$?"
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_LEADS=0,1,2,3 FERROTILE_BENCH_LEAD_SHAPES=4096x4096x4096,8192x8192x1024,8192x8192x8192 timeout 260 bundle/bin/bench-gemm_tc > $OUT/logs/bench-new.log 2>&1; echo "new rc=$?"
cd $OUT && tar czf logs.tgz logs
for v in old new; do echo "== $v"; grep -E "^\| bf16" logs/bench-$v.log | awk -F'|' '{print $3,$4,$5,$7}' | sed 's/median of 7 in turn/in turn/; s/fused bias + GELU/fused/'; done
grep "test result" logs/t-wgmma.log; grep -E "FAILED|panicked" logs/t-wgmma.log | head -5
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|test result" logs/san-*.log
rm -rf logs
