#!/usr/bin/env bash
# H200: the ring stepped in 32 bits and the consumer index broadcast (new) against the committed kernels (old):
# the ping-pong and cooperative tiles at one, four and eight tiles per block (every tile whole), the epilogue rows
# (Auto plain / fused in turn, each tile forced plain and fused); two rounds alternating old/new. Then the new
# build's GPU tests cuda::wgmma. SASS of the new pp128 k-loop.
set -u
mkdir -p /tmp/old /tmp/new
tar xJf .gpu/probe.tar.xz -C /tmp/old || echo UNTAR OLD FAILED
tar xJf .gpu/ring.tar.xz -C /tmp/new || echo UNTAR NEW FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
mkdir -p $OUT/logs
cuobjdump -sass -fun gemm_wgmma_bf16_bf16_nn_pp128_s6 .gpu/sm90a_ring.cubin > $OUT/logs/pp128-new.sass 2>&1
echo "new pp128 SASS: IMAD.WIDE $(grep -c 'IMAD.WIDE' $OUT/logs/pp128-new.sass) UIMAD $(grep -c 'UIMAD' $OUT/logs/pp128-new.sass) SHF.R.U64 $(grep -c 'SHF.R.U64' $OUT/logs/pp128-new.sass)"
export FERROTILE_BENCH_SHAPES=1024x2048x8192,2048x4224x8192,4096x4096x4096
export FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096 epilogue,bf16→bf16 8192×8192×1024 epilogue"
for r in 1 2; do
  for v in old new; do
    echo "=== $v round $r"
    if [ $r$v = 1new ]; then export FERROTILE_RESULTS=$OUT/results.jsonl; else unset FERROTILE_RESULTS; fi
    ( cd /tmp/$v && timeout 120 bundle/bin/bench-gemm_tc > $OUT/logs/bench-$v$r.log 2>&1 ); echo "rc=$?"
    grep -E "^\| bf16" $OUT/logs/bench-$v$r.log | awk -F'|' '{print $3,$4,$5,$7}' | sed 's/every tile whole/whole/; s/median of 7 in turn/in turn/'
  done
done
cd /tmp/new
FERROTILE_REQUIRE_GPU=1 timeout 230 bundle/bin/kernels --include-ignored --test-threads=16 cuda::wgmma > $OUT/logs/t-wgmma.log 2>&1; echo "wgmma rc=$?"
cd $OUT && tar czf logs.tgz logs
grep "test result" logs/t-wgmma.log; grep -E "FAILED|panicked" logs/t-wgmma.log | head -10
rm -rf logs
