#!/usr/bin/env bash
# H200: decode against the swapped tiles' ring depth. base = the committed build (narrow swapped tile 12 stages,
# 128 x 64 swapped tile 9); st4-4 / st6-6 / st8-9 = the same kernels with 4/4, 6/6 and 8/9 stages (the narrow
# tile / the 128 x 64 one; nothing else changed). 1x8192^2 and 16x8192^2 (narrow tile) one call and ten back to
# back, two rounds alternating builds; 64x14336x4096 (128 x 64 tile) one call, one round. Then the committed
# build's GPU tests of the tf32 wgmma cases (the part of cuda::wgmma the last run's limit cut).
set -u
V="base st4-4 st6-6 st8-9"
for v in $V; do mkdir -p /tmp/$v && tar xJf .gpu/$v.tar.xz -C /tmp/$v || echo UNTAR $v FAILED; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
for r in 1 2; do
  for v in $V; do
    echo "=== $v round $r: 1x8192^2, 16x8192^2"
    if [ $r = 1 ]; then export FERROTILE_RESULTS=$OUT/results-$v.jsonl; else unset FERROTILE_RESULTS; fi
    ( cd /tmp/$v && FERROTILE_BENCH_ONLY="1×8192×8192 decode,16×8192×8192 decode" FERROTILE_BENCH_BACK_TO_BACK=1 timeout 60 bundle/bin/bench-gemm_tc > $OUT/d-$v-$r.log 2>&1 ); echo "rc=$?"
    grep -E "cuBLAS:|auto \(|swap_16x128:|auto, 10 calls|cuBLAS, 10" $OUT/d-$v-$r.log | grep -v JSON | awk -F'|' '{print $3,$4,$8}'
  done
done
unset FERROTILE_RESULTS
for v in $V; do
  echo "=== $v 64x14336x4096"
  ( cd /tmp/$v && FERROTILE_BENCH_ONLY="64×14336×4096 decode" timeout 40 bundle/bin/bench-gemm_tc > $OUT/d64-$v.log 2>&1 ); echo "rc=$?"
  grep -E "cuBLAS:|auto \(|swap_64x128:" $OUT/d64-$v.log | grep -v JSON | awk -F'|' '{print $3,$4,$8}'
done
cd /tmp/base
FERROTILE_REQUIRE_GPU=1 timeout 200 bundle/bin/kernels --include-ignored --test-threads=16 cuda::wgmma::tf32 > $OUT/t-tf32.log 2>&1; echo "tf32 tests rc=$?"
grep "test result" $OUT/t-tf32.log; grep -E "FAILED|panicked" $OUT/t-tf32.log | head -10
gzip $OUT/t-tf32.log
