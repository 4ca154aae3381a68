#!/usr/bin/env bash
# H200: Auto weighs C stored by the threads (THREADED_C_EPILOGUE) — GPU tests, bench of the batched and small odd shapes.
set -u
mkdir -p $OUT/logs
mkdir -p /tmp/s1 && tar xJf .gpu/s1.tar.xz -C /tmp/s1 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
cd /tmp/s1
for f in batch cuda::wgmma::bf16_bf16::nn cuda::wgmma::bf16_bf16::nt; do
  n=${f//:/-}
  FERROTILE_REQUIRE_GPU=1 timeout 90 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator $f > $OUT/logs/t-$n.log 2>&1; echo "tests $f rc=$? t=$SECONDS"
  grep "test result" $OUT/logs/t-$n.log; grep -E "FAILED|panicked" $OUT/logs/t-$n.log | head -5
done
ONLY="bf16→bf16 512×127×127×127,bf16→bf16 512×128×128×128,bf16→bf16 64×255×255×255,bf16→bf16 64×256×256×256,bf16→bf16 16×511×511×511,bf16→bf16 256×255×1023×63,bf16→bf16 256×256×1024×64,bf16→bf16 1024×1024×1024,bf16→bf16 1021×1019×1031"
for r in 1 2; do
  L=$OUT/logs/b-$r.log
  FERROTILE_RESULTS=$OUT/logs/results-$r.jsonl FERROTILE_BENCH_ONLY="$ONLY" timeout 140 bundle/bin/bench-gemm_tc > $L 2>&1; echo "bench $r rc=$? t=$SECONDS"
  grep -hE "^\| bf16" $L | grep -E "×(127|128|255|256|511|1023|1024|1019)×.*(auto|cuBLAS|wgmma_128x128 |wgmma_128x256 |swap_64x128|pp_128x128 )" | awk -F'|' '{print $3,$4,$5,$7}'
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
