#!/usr/bin/env bash
# H200: the build that stages a row-major `B` of a large product (m ≥ 2048) whose rows are 16- but not 128-byte aligned
# apart to a 128-byte pitch. The odd shapes one dimension at a time and the 4104 pitches, with the padded cases (which
# now restage a 16-byte-padded `B` too), two rounds; then the GPU tests of the restaged cases.
set -u
mkdir -p $OUT/logs /tmp/new && tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
cd /tmp/new
ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 4096×4099×4096,bf16→bf16 4096×4104×4096,bf16→bf16 4096×4096×4104,bf16→bf16 4093×4099×4091"
for r in 1 2; do
  FERROTILE_RESULTS=$OUT/logs/results.jsonl FERROTILE_BENCH_ONLY="$ONLY" timeout 200 bundle/bin/bench-gemm_tc > $OUT/logs/odd$r.log 2>&1; echo "bench round $r rc=$?"
  grep -E "vs aligned|padded to 16|padded to 128 B \(no|auto \(" $OUT/logs/odd$r.log | grep -v JSON | awk -F'|' '{print $3,$4,$5,$7}'
done
FERROTILE_REQUIRE_GPU=1 timeout 120 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator restaged_b > $OUT/logs/t-restaged.log 2>&1; echo "restaged tests rc=$?"
grep "test result" $OUT/logs/t-restaged.log; grep -E "FAILED|panicked" $OUT/logs/t-restaged.log | head -5
FERROTILE_REQUIRE_GPU=1 timeout 150 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator cuda::wgmma::bf16_bf16::nn > $OUT/logs/t-nn.log 2>&1; echo "bf16 nn tests rc=$?"
grep "test result" $OUT/logs/t-nn.log; grep -E "FAILED|panicked" $OUT/logs/t-nn.log | head -5
cd $OUT && tar czf logs.tgz logs && rm -rf logs
