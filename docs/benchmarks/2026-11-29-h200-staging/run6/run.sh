#!/usr/bin/env bash
# H200: the committed build (staging copy by warps, kept staging buffers) on every odd shape of the bench with its
# padded cases, two rounds; then GPU tests of more staged products.
set -u
mkdir -p $OUT/logs /tmp/new3 && tar xJf .gpu/new3.tar.xz -C /tmp/new3 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
cd /tmp/new3
ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×1024,bf16→bf16 8192×8192×1023,bf16→bf16 4096×4104×4096,bf16→bf16 4096×4096×4104,bf16→bf16 2048×4096×4096,bf16→bf16 2048×4104×4096,bf16→bf16 1024×4096×4096,bf16→bf16 1024×4104×4096"
for r in 1 2; do
  L=$OUT/logs/odd$r.log
  FERROTILE_RESULTS=$OUT/logs/results.jsonl FERROTILE_BENCH_ONLY="$ONLY" timeout 170 bundle/bin/bench-gemm_tc > $L 2>&1; echo "bench round $r rc=$? t=$SECONDS"
  grep -hE "vs aligned" $L | grep -v JSON | awk -F'|' '{print $3,$4,$5,$7}'
done
for f in cuda::wgmma::bf16_f32 restaged; do
  FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator $f > $OUT/logs/t-$f.log 2>&1; echo "tests $f rc=$?"
  grep "test result" $OUT/logs/t-$f.log; grep -E "FAILED|panicked" $OUT/logs/t-$f.log | head -3
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
