#!/usr/bin/env bash
# H200: the wgmma maps' L2 promotion, 256 B (committed, `base`) against 128 B (`p128`) and none (`pnone`) -- host
# builds differing only in that argument of cuTensorMapEncodeTiled, the kernels the same. Decode rows (one call and
# ten back to back), two rounds alternating builds; then two compute-bound shapes once per build.
set -u
V="base p128 pnone"
for v in $V; do mkdir -p /tmp/$v && tar xJf .gpu/$v.tar.xz -C /tmp/$v || echo UNTAR $v FAILED; done
mkdir -p $OUT/logs
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
D="1×8192×8192 decode,16×8192×8192 decode,64×14336×4096 decode,1×8192×8192 (Bᵀ) decode,64×14336×4096 (Bᵀ) decode"
for r in 1 2; do
  for v in $V; do
    echo "=== $v round $r decode"
    if [ $r = 1 ]; then export FERROTILE_RESULTS=$OUT/logs/results-$v.jsonl; else unset FERROTILE_RESULTS; fi
    ( cd /tmp/$v && FERROTILE_BENCH_ONLY="$D" FERROTILE_BENCH_BACK_TO_BACK=1 timeout 100 bundle/bin/bench-gemm_tc > $OUT/logs/d-$v-$r.log 2>&1 ); echo "rc=$?"
    grep -E "device copy|cuBLAS:|auto \(|auto, 10 calls|cuBLAS, 10" $OUT/logs/d-$v-$r.log | grep -v JSON | awk -F'|' '{print $3,$4,$7}'
  done
done
unset FERROTILE_RESULTS
for v in $V; do
  echo "=== $v compute-bound"
  ( cd /tmp/$v && FERROTILE_BENCH_ONLY="bf16→bf16 4096×14336×4096,bf16→bf16 2048×2048×2048" timeout 60 bundle/bin/bench-gemm_tc > $OUT/logs/g-$v.log 2>&1 ); echo "rc=$?"
  grep -E "^\| bf16→bf16 \| (4096×14336×4096|2048×2048×2048) \|" $OUT/logs/g-$v.log | head -4 | cut -c1-150
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
