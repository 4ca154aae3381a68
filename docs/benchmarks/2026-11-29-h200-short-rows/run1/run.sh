#!/usr/bin/env bash
# H200: the staging copy's short rows — the committed build before (old: a thread per chunk, rows under 32 chunks)
# against a warp over several short rows (new), two rounds in turn; then GPU tests of staged products and memcheck (new).
set -u
mkdir -p $OUT/logs
for b in old new; do mkdir -p /tmp/$b && tar xJf .gpu/$b.tar.xz -C /tmp/$b || echo UNTAR FAILED $b; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
ONLY="bf16→bf16 512×127×127×127,bf16→bf16 512×128×128×128,bf16→bf16 1024×1024×1024,bf16→bf16 1021×1019×1031"
for r in old new old new; do
  cd /tmp/$r
  L=$OUT/logs/b-$r-$SECONDS.log
  FERROTILE_RESULTS=$OUT/logs/results-$r.jsonl FERROTILE_BENCH_ONLY="$ONLY" timeout 100 bundle/bin/bench-gemm_tc > $L 2>&1; echo "bench $r rc=$? t=$SECONDS"
  grep -hE "^\| bf16" $L | grep -E "512×12[78]|vs aligned" | awk -F'|' '{print $3,$4,$5,$6,$7}'
done
cd /tmp/new
for f in cuda::mma:: cuda::wgmma::bf16_bf16::nn cuda::wgmma::tf32::nn cuda::wgmma::f16_f16::nn batch restaged twice; do
  FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator $f > $OUT/logs/t-$f.log 2>&1; echo "tests $f rc=$?"
  grep "test result" $OUT/logs/t-$f.log; grep -E "FAILED|panicked" $OUT/logs/t-$f.log | head -3
done
bundle/bin/kernels --list 2>/dev/null | grep -E "^cuda::.*(batch|staged|odd)" | sed 's/: test$//' | head -60 > /tmp/mc.txt; wc -l /tmp/mc.txt
FERROTILE_TESTS_FROM=/tmp/mc.txt timeout 120 compute-sanitizer --tool memcheck bundle/bin/kernels --include-ignored --test-threads=1 > $OUT/logs/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|test result" $OUT/logs/memcheck.log | tail -3
cd $OUT && tar czf logs.tgz logs && rm -rf logs
