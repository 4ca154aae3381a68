#!/usr/bin/env bash
# H200: the build whose 128 × 128 tile reads a row-major 16-bit `A` with rows not 16-byte aligned apart through eight
# residue maps (no staging of `A`). GPU tests of the 128 × 128 tile (its residue kernels run wherever a case's `k`,
# so `lda`, is not a multiple of 8), memcheck on two residue cases, then the odd-shape rows of the bench (one round).
set -u
mkdir -p $OUT/logs /tmp/new && tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
cd /tmp/new
export FERROTILE_REQUIRE_GPU=1
timeout 150 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator wgmma_128x128 > $OUT/logs/t-128.log 2>&1; echo "128x128 tests rc=$?"
grep "test result" $OUT/logs/t-128.log; grep -E "FAILED|panicked" $OUT/logs/t-128.log | head -5
timeout 60 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator wgmma::auto > $OUT/logs/t-auto.log 2>&1; echo "auto tests rc=$?"; grep "test result" $OUT/logs/t-auto.log
printf 'cuda::wgmma::bf16_bf16::nn::wgmma_128x128::200x130x131\ncuda::wgmma::bf16_bf16::nt::wgmma_128x128::33x200x1031\n' > /tmp/mc.txt
FERROTILE_TESTS_FROM=/tmp/mc.txt timeout 90 compute-sanitizer --tool memcheck bundle/bin/kernels --include-ignored --test-threads=1 > $OUT/logs/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|test result" $OUT/logs/memcheck.log
ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 4093×4099×4091,bf16→bf16 1024×1024×1024,bf16→bf16 1021×1019×1031,bf16→bf16 4096×4096×4091,bf16→bf16 4096×4099×4096,bf16→bf16 8192×8192×1024,bf16→bf16 8192×8192×1023"
FERROTILE_RESULTS=$OUT/logs/results.jsonl FERROTILE_BENCH_ONLY="$ONLY" timeout 230 bundle/bin/bench-gemm_tc > $OUT/logs/odd.log 2>&1; echo "bench rc=$?"
grep -E "vs aligned|cuBLAS:|padded" $OUT/logs/odd.log | grep -v JSON | awk -F'|' '{print $2,$3,$4,$7}'
gzip $OUT/logs/t-128.log
cd $OUT && tar czf logs.tgz logs && rm -rf logs
