#!/usr/bin/env bash
# H200: stream-K for the swapped decode tile. Torch references (copy, a read-only sum, torch.matmul); the decode rows
# (Auto = stream-K now; forced splits 1 and 2 = the committed Auto's walks: 64x14336x4096 unsplit, the 8192-wide
# ones in 2 parts), ten back to back; ncu of cuBLAS's and our decode kernels; GPU tests of the swapped tile;
# compute-sanitizer on stream-K cases.
set -u
mkdir -p /tmp/new && tar xJf .gpu/head.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
mkdir -p $OUT/logs
timeout 90 /opt/torch/.venv/bin/python3 .gpu/torch_decode.py 2>&1 | tee $OUT/logs/torch.txt
cd /tmp/new
FERROTILE_RESULTS=$OUT/logs/results.jsonl FERROTILE_BENCH_ONLY=decode FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_DECODE_SPLITS=1,2 timeout 230 bundle/bin/bench-gemm_tc > $OUT/logs/bench.log 2>&1; echo "bench rc=$?"
grep "decode\|host time" $OUT/logs/bench.log | grep -v JSON | grep -v "128x128\|128x256\|mma_128" | cut -c1-150
for s in "1×8192×8192 decode" "64×14336×4096 decode"; do
  f=$(echo "$s" | cut -d' ' -f1 | tr -c 'a-z0-9\n' '_')
  FERROTILE_BENCH_ONLY="$s" timeout 60 ncu --clock-control none -c 4 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max --csv bundle/bin/bench-gemm_tc > $OUT/logs/ncu-$f.csv 2> $OUT/logs/ncu-$f.err; echo "ncu $s rc=$?"
  grep -v "^==" $OUT/logs/ncu-$f.csv | awk -F'","' 'NR>1 {print substr($5,1,60) " | " $(NF-2) " " $(NF-1) " " $NF}'
done
FERROTILE_REQUIRE_GPU=1 timeout 100 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator wgmma_swap > $OUT/logs/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/logs/t-wgmma.log; echo "ok lines: $(grep -c '\.\.\. ok' $OUT/logs/t-wgmma.log), swap ok: $(grep 'swap' $OUT/logs/t-wgmma.log | grep -c '\.\.\. ok')"; grep -E "FAILED|panicked" $OUT/logs/t-wgmma.log | head -5
for tool in memcheck racecheck; do
  FERROTILE_REQUIRE_GPU=1 timeout 60 compute-sanitizer --tool $tool bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_swap_64x128::bias_gelu > $OUT/logs/san-$tool.log 2>&1; echo "$tool rc=$?"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result" $OUT/logs/san-$tool.log | head -3
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
