#!/usr/bin/env bash
# H200: the direct tile (operands read where they lie) — GPU tests, memcheck, bench of odd and batched shapes.
set -u
mkdir -p $OUT/logs
mkdir -p /tmp/d2 && tar xJf .gpu/d2.tar.xz -C /tmp/d2 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
cd /tmp/d2
for f in cuda::mma:: cuda::wgmma::bf16_bf16::nn batch; do
  n=${f//:/-}
  FERROTILE_REQUIRE_GPU=1 timeout 90 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator $f > $OUT/logs/t-$n.log 2>&1; echo "tests $f rc=$? t=$SECONDS"
  grep "test result" $OUT/logs/t-$n.log; grep -E "FAILED|panicked" $OUT/logs/t-$n.log | head -5
done
bundle/bin/kernels --list 2>/dev/null | grep -E "^cuda::mma::.*direct" | sed 's/: test$//' | grep -v "1021x1019" | awk 'NR % 2 == 0' | head -60 > /tmp/mc.txt
FERROTILE_TESTS_FROM=/tmp/mc.txt timeout 120 compute-sanitizer --tool memcheck bundle/bin/kernels --include-ignored --test-threads=1 > $OUT/logs/memcheck.log 2>&1; echo "memcheck rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test result" $OUT/logs/memcheck.log | tail -3
cp /tmp/mc.txt $OUT/logs/memcheck-cases.txt
ONLY="bf16→bf16 512×127×127×127,bf16→bf16 512×128×128×128,bf16→bf16 64×255×255×255,bf16→bf16 64×256×256×256,bf16→bf16 16×511×511×511,bf16→bf16 16×512×512×512,bf16→bf16 256×255×1023×63,bf16→bf16 256×256×1024×64,bf16→bf16 1024×1024×1024,bf16→bf16 1021×1019×1031,bf16→bf16 4096×4096×4096,bf16→bf16 4093×4099×4091,bf16→bf16 4096×4099×4096,bf16→bf16 4096×4096×4091"
for r in 1 2; do
  L=$OUT/logs/b-$r.log
  FERROTILE_RESULTS=$OUT/logs/results-$r.jsonl FERROTILE_BENCH_ONLY="$ONLY" timeout 150 bundle/bin/bench-gemm_tc > $L 2>&1; echo "bench $r rc=$? t=$SECONDS"
  grep -hE "^\| bf16" $L | grep -E "×(127|128|255|256|511|512|1023|1024)×.*(auto|cuBLAS|direct|wgmma_128x128 )|vs aligned" | awk -F'|' '{print $3,$4,$5,$7}'
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
