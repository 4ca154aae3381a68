#!/usr/bin/env bash
# H200: a warp per 128 consecutive chunks of a matrix's copy (new4) against a warp per row segment or group of whole
# short rows (new3), two rounds in turn; ncu's staging launches (both); GPU tests and memcheck of new4.
set -u
mkdir -p $OUT/logs
for b in new3 new4; do mkdir -p /tmp/$b && tar xJf .gpu/$b.tar.xz -C /tmp/$b || echo UNTAR FAILED $b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/logs/gpu.txt
ONLY="bf16→bf16 512×127×127×127,bf16→bf16 512×128×128×128,bf16→bf16 1024×1024×1024,bf16→bf16 1021×1019×1031,bf16→bf16 4096×4096×4096,bf16→bf16 4093×4099×4091,bf16→bf16 4096×4099×4096,bf16→bf16 4096×4096×4091"
for r in new3 new4 new3 new4; do
  cd /tmp/$r
  L=$OUT/logs/b-$r-$SECONDS.log
  FERROTILE_RESULTS=$OUT/logs/results-$r.jsonl FERROTILE_BENCH_ONLY="$ONLY" timeout 100 bundle/bin/bench-gemm_tc > $L 2>&1; echo "bench $r rc=$? t=$SECONDS"
  grep -hE "^\| bf16" $L | grep -E "512×127.*(auto|cuBLAS)|vs aligned" | awk -F'|' '{print $3,$4,$5,$6,$7}'
done
for r in new3 new4; do
  cd /tmp/$r
  for s in "512×127×127×127" "4096×4099×4096,bf16→bf16 4096×4096×4096" "4093×4099×4091,bf16→bf16 4096×4096×4096"; do
    n=$(echo "$s" | cut -d, -f1)
    FERROTILE_BENCH_ONLY="bf16→bf16 $s" timeout 60 ncu --metrics gpu__time_duration.sum -k regex:"gemm_stage" -c 4 bundle/bin/bench-gemm_tc > $OUT/logs/ncu-$r-$n.log 2>&1
    echo "ncu $r $n: $(grep -E "gpu__time_duration" $OUT/logs/ncu-$r-$n.log | awk '{print $NF}' | paste -sd' ')"
  done
done
cd /tmp/new4
for f in cuda::mma:: cuda::wgmma::bf16_bf16::nn cuda::wgmma::tf32::nn batch restaged; do
  n=${f//:/-}
  FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator $f > $OUT/logs/t-$n.log 2>&1; echo "tests $f rc=$?"
  grep "test result" $OUT/logs/t-$n.log; grep -E "FAILED|panicked" $OUT/logs/t-$n.log | head -3
done
bundle/bin/kernels --list 2>/dev/null | grep -E "^cuda::.*(batch|staged|odd|127|33x|7x)" | sed 's/: test$//' | awk 'NR % 3 == 0' | head -80 > /tmp/mc.txt
FERROTILE_TESTS_FROM=/tmp/mc.txt timeout 100 compute-sanitizer --tool memcheck bundle/bin/kernels --include-ignored --test-threads=1 > $OUT/logs/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|test result" $OUT/logs/memcheck.log | tail -3
cp /tmp/mc.txt $OUT/logs/memcheck-cases.txt
cd $OUT && tar czf logs.tgz logs && rm -rf logs
