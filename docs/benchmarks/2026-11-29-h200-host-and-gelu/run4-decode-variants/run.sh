#!/usr/bin/env bash
# H200, decode kernel experiments on 1x8192^2 (one call and ten back to back) against the committed build (new):
#   none / l2_128: B's and A's TMA maps with L2 promotion NONE / 128B instead of 256B (host change only);
#   rot: swapped tiles' producers start their k-range at one of eight points by tile (blocks streaming B at once read
#        it at different k). Then 64x14336x4096 one call (new, rot) and rot's GPU tests of the swapped tiles.
set -u
for v in new p-NONE p-L2_128B rot; do mkdir -p /tmp/$v && tar xJf .gpu/$v.tar.xz -C /tmp/$v || echo UNTAR $v FAILED; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
for v in new p-NONE p-L2_128B rot; do
  echo "=== $v 1x8192^2"
  ( cd /tmp/$v && FERROTILE_RESULTS=$OUT/results-$v.jsonl FERROTILE_BENCH_ONLY="1×8192×8192 decode" FERROTILE_BENCH_BACK_TO_BACK=1 timeout 75 bundle/bin/bench-gemm_tc > $OUT/d1-$v.log 2>&1 ); echo "rc=$?"
  grep -E "cuBLAS:|auto \(|swap_16x128:|auto, 10 calls|cuBLAS, 10|programmatic launch, 10" $OUT/d1-$v.log | grep -v JSON | awk -F'|' '{print $4,$8}'
done
for v in new rot; do
  echo "=== $v 64x14336x4096"
  ( cd /tmp/$v && FERROTILE_BENCH_ONLY="64×14336×4096 decode" timeout 45 bundle/bin/bench-gemm_tc > $OUT/d64-$v.log 2>&1 ); echo "rc=$?"
  grep -E "cuBLAS:|auto \(|swap_64x128:" $OUT/d64-$v.log | grep -v JSON | awk -F'|' '{print $4,$8}'
done
cd /tmp/rot
FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator wgmma_swap > $OUT/t-rot-swap.log 2>&1; echo "rot swap tests rc=$?"
grep "test result" $OUT/t-rot-swap.log; grep -E "FAILED|panicked" $OUT/t-rot-swap.log | head -5
gzip $OUT/t-rot-swap.log
