#!/usr/bin/env bash
# H200: a row-major A whose rows are 16- but not 128-byte aligned, restaged for the 128-wide tiles (k4) against the
# build without it (k3), every tile forced, one round each in turn twice; GPU tests of the restaged cases (k4).
set -u
mkdir -p $OUT/logs
trap 'cd $OUT && tar czf logs.tgz logs && rm -rf logs' EXIT
for b in k3 k4; do mkdir -p /tmp/$b && tar xJf .gpu/$b.tar.xz -C /tmp/$b || echo UNTAR $b FAILED; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
S="3000x3000x3000,3072x3072x3000,3000x3072x3072,4096x4096x4040,8192x2048x1000"
for r in 1 2; do
  for b in k3 k4; do
    cd /tmp/$b
    FERROTILE_RESULTS=$OUT/logs/a-$b-$r.jsonl FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_TILES="$S" timeout 70 bundle/bin/bench-gemm_tc > $OUT/logs/a-$b-$r.log 2>&1; echo "a $b $r rc=$? t=$SECONDS"
  done
done
cd /tmp/k4
timeout 60 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator restaged > $OUT/logs/t-restaged.log 2>&1; echo "test restaged rc=$? t=$SECONDS"; tail -2 $OUT/logs/t-restaged.log
