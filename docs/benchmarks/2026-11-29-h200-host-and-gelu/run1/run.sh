#!/usr/bin/env bash
# H200: (1) the host cost of the driver calls a decode call makes (hostcost.cu); (2) SASS of the 128x256 bf16 kernel:
# MUFU.TANH count (the paired f16x2 tanh of the GELU); (3) GPU tests of the fused GELU cases (wgmma, mma);
# (4) epilogue rows 4096^3 / 8192^3 bf16->bf16, old (committed) and new alternating, two rounds;
# (5) decode 1x8192^2 and 16x8192^2 (host time of one call: maps cached by key), old and new.
set -u
mkdir -p /tmp/old /tmp/new $OUT/logs
tar xJf .gpu/old.tar.xz -C /tmp/old || echo UNTAR OLD FAILED
tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR NEW FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
nvcc -O2 -arch=sm_90 -o /tmp/hostcost .gpu/hostcost.cu -lcuda > $OUT/logs/nvcc.log 2>&1 && /tmp/hostcost | tee $OUT/logs/hostcost.txt
for v in old new; do
  cuobjdump -sass -fun gemm_wgmma_bf16_bf16_nn_128x256_s4 .gpu/$v.cubin > $OUT/logs/sass-$v.txt 2>&1
  echo "$v: MUFU.TANH $(grep -c 'MUFU.TANH' $OUT/logs/sass-$v.txt), lines $(wc -l < $OUT/logs/sass-$v.txt)"; grep -m3 'MUFU.TANH' $OUT/logs/sass-$v.txt
done
gzip $OUT/logs/sass-*.txt
cd /tmp/new
FERROTILE_REQUIRE_GPU=1 timeout 90 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator gelu > $OUT/logs/t-gelu.log 2>&1; echo "gelu tests rc=$?"
grep "test result" $OUT/logs/t-gelu.log; grep -E "FAILED|panicked" $OUT/logs/t-gelu.log | head -10
grep -E "rel(ative)? (norm )?err" $OUT/logs/t-gelu.log | head -3
export FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096 epilogue,bf16→bf16 8192×8192×8192 epilogue"
for r in 1 2; do
  for v in old new; do
    echo "=== epilogue $v round $r"
    if [ $v = new ]; then export FERROTILE_BENCH_EPILOGUE_PARTS=1; else unset FERROTILE_BENCH_EPILOGUE_PARTS; fi
    if [ $r = 1 ]; then export FERROTILE_RESULTS=$OUT/logs/results-$v.jsonl; else unset FERROTILE_RESULTS; fi
    ( cd /tmp/$v && timeout 80 bundle/bin/bench-gemm_tc > $OUT/logs/epi-$v$r.log 2>&1 ); echo "rc=$?"
    grep -E "^\| bf16|fused %" $OUT/logs/epi-$v$r.log | grep -v "pp_128\|c2" | awk -F'|' '{print $3,$4,$5,$7,$8}' | cut -c1-140
  done
done
unset FERROTILE_BENCH_EPILOGUE_PARTS
export FERROTILE_BENCH_ONLY="1×8192×8192 decode,16×8192×8192 decode" FERROTILE_BENCH_BACK_TO_BACK=1
for v in old new; do
  echo "=== decode $v"
  export FERROTILE_RESULTS=$OUT/logs/results-decode-$v.jsonl
  ( cd /tmp/$v && timeout 70 bundle/bin/bench-gemm_tc > $OUT/logs/decode-$v.log 2>&1 ); echo "rc=$?"
  grep -E "cuBLAS|auto|host time" $OUT/logs/decode-$v.log | grep -v "JSON\|plain launch" | cut -c1-150
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
