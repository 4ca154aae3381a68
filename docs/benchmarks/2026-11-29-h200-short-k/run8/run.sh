#!/usr/bin/env bash
# H200: k5 (A 16 bytes off its lines restaged for 128-wide tiles of >= 2048 x 2048 products, the copy in Auto's
# estimate) against k3 (neither), every tile forced, two rounds in turn; GPU tests of the restaged cases (k5).
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
for b in k3 k5; do mkdir -p /tmp/$b && tar xJf .gpu/$b.tar.xz -C /tmp/$b || echo UNTAR $b FAILED; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
S="3000x3000x3000,3072x3072x3000,8192x2048x1000,5000x5000x700,4096x4096x4040,6144x4096x1992,2048x8192x2040"
for r in 1 2; do
  for b in k3 k5; do
    cd /tmp/$b
    FERROTILE_RESULTS=$OUT/logs/a-$b-$r.jsonl FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_TILES="$S" timeout 60 bundle/bin/bench-gemm_tc > $OUT/logs/a-$b-$r.log 2>&1; echo "a $b $r rc=$? t=$SECONDS"
  done
done
cd /tmp/k5
timeout 40 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator restaged > $OUT/logs/t-restaged.log 2>&1; echo "test restaged rc=$? t=$SECONDS"; tail -2 $OUT/logs/t-restaged.log
