#!/usr/bin/env bash
# H200: host time of a decode call, old (committed: maps encoded every call, the upload cached by content) and new
# (the maps block cached by its operands and boxes, encoded only on a miss), one round each; the new bench
# also prints where the host time goes (checks + Auto's choice; a one-element vec_add launch). One call and ten back
# to back. Then the GPU tests of the wgmma engine on the new build.
set -u
mkdir -p /tmp/old /tmp/new $OUT/logs
tar xJf .gpu/old.tar.xz -C /tmp/old || echo UNTAR OLD FAILED
tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR NEW FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
export FERROTILE_BENCH_ONLY="1×8192×8192 decode,64×14336×4096 decode" FERROTILE_BENCH_BACK_TO_BACK=1
for r in 1; do
  for v in old new; do
    echo "=== decode $v round $r"
    if [ $r = 1 ]; then export FERROTILE_RESULTS=$OUT/logs/results-$v.jsonl; else unset FERROTILE_RESULTS; fi
    ( cd /tmp/$v && timeout 120 bundle/bin/bench-gemm_tc > $OUT/logs/decode-$v$r.log 2>&1 ); echo "rc=$?"
    grep -E "host time|cuBLAS:|auto \(|auto, 10 calls|cuBLAS, 10" $OUT/logs/decode-$v$r.log | grep -v JSON | cut -c1-160
  done
done
unset FERROTILE_RESULTS FERROTILE_BENCH_ONLY FERROTILE_BENCH_BACK_TO_BACK
cd /tmp/new
FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator wgmma > $OUT/logs/t-wgmma.log 2>&1; echo "wgmma tests rc=$?"
grep "test result" $OUT/logs/t-wgmma.log; grep -E "FAILED|panicked" $OUT/logs/t-wgmma.log | head -10
FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=16 pdl > $OUT/logs/t-pdl.log 2>&1; echo "pdl tests rc=$?"
grep "test result" $OUT/logs/t-pdl.log; grep -E "FAILED|panicked" $OUT/logs/t-pdl.log | head -5
cd $OUT && tar czf logs.tgz logs && rm -rf logs
