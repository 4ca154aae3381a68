#!/usr/bin/env bash
# H200: programmatic launch on by default, workspace guard, Auto's estimate with the swapped tile.
set -u
mkdir -p /tmp/c2 && tar xJf .gpu/c2.tar.xz -C /tmp/c2 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/c2
for f in pdl plain_launch twice thrice sgemm::split_k; do
  n=$(echo $f | tr -c 'a-z0-9\n' '_')
  FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=12 $f > $OUT/t-$n.log 2>&1; echo "$f rc=$?"
  grep "test result" $OUT/t-$n.log; grep -E "FAILED|panicked" $OUT/t-$n.log | head -5
done
FERROTILE_REQUIRE_GPU=1 timeout 170 bundle/bin/kernels --include-ignored --test-threads=16 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "cuda::wgmma rc=$?"
grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked" $OUT/t-wgmma.log | head -5; grep -c "\.\.\. ok" $OUT/t-wgmma.log; gzip -f $OUT/t-wgmma.log
FERROTILE_REQUIRE_GPU=1 timeout 40 bundle/bin/kernels --include-ignored --test-threads=12 cuda::mma > $OUT/t-mma.log 2>&1; echo "cuda::mma rc=$?"; grep "test result" $OUT/t-mma.log; grep -E "FAILED|panicked" $OUT/t-mma.log | head -5
timeout 60 compute-sanitizer --tool memcheck bundle/bin/kernels --include-ignored --test-threads=1 "cuda::wgmma::bf16_bf16::nn::wgmma_128x128::pdl::1x4096x4096" > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|test result" $OUT/memcheck.log
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_ONLY="1×8192×8192 decode,64×14336×4096 decode,bf16→bf16 4096×4096×4096,bf16→bf16 1024×1024×1024,1024×2048×1024,2048×1024×512,512×2048×2048,1024×1024×8192,4093×4099×4091,1021×1019×1031" timeout 280 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| bf16|^\(host" $OUT/bench.log | grep -v "mma_128x128 \|JSON" | awk -F'|' '{print $3,"|",$4,"|",$5,"|",$7}' | head -120
