#!/usr/bin/env bash
# H200: THREADED_C_KTILES (additive) — the fused bias + GELU with C stored by the threads, each tile forced; GPU tests.
set -u
mkdir -p $OUT/logs
mkdir -p /tmp/s3 && tar xJf .gpu/s3.tar.xz -C /tmp/s3 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
cd /tmp/s3
for f in gelu batch; do
  FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator $f > $OUT/logs/t-$f.log 2>&1; echo "tests $f rc=$? t=$SECONDS"
  grep "test result" $OUT/logs/t-$f.log; grep -E "FAILED|panicked" $OUT/logs/t-$f.log | head -5
done
for s in "4095×14335×4096" "512×127×127×127"; do
  L=$OUT/logs/b-${s%%×*}.log
  FERROTILE_RESULTS=$OUT/logs/results.jsonl FERROTILE_BENCH_ONLY="bf16→bf16 $s epilogue" timeout 120 bundle/bin/bench-gemm_tc > $L 2>&1; echo "bench $s rc=$? t=$SECONDS"
  grep -hE "^\| bf16" $L | awk -F'|' '{print $4,$5,$7}'
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
