#!/usr/bin/env bash
# H200: tensor maps + kept split-K workspace + programmatic launch option. GPU tests (pdl/twice/thrice/split),
# bench (decode with in-turn PDL A/B and host time, 4096^3 b2b, few-tile shapes), ncu of ping-pong vs cooperative.
set -u
mkdir -p /tmp/c1 && tar xJf .gpu/c1.tar.xz -C /tmp/c1 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/c1
for f in pdl twice thrice sgemm::split_k; do
  n=$(echo $f | tr -c 'a-z0-9\n' '_')
  FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=12 $f > $OUT/t-$n.log 2>&1; echo "$f rc=$?"
  grep "test result" $OUT/t-$n.log; grep -E "FAILED|panicked" $OUT/t-$n.log | head -5
done
timeout 60 compute-sanitizer --tool memcheck bundle/bin/kernels --include-ignored --test-threads=1 "wgmma::bf16_bf16::nn::wgmma_swap_64x128::pdl::1x4096x4096" > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|test result" $OUT/memcheck.log
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_ONLY="1×8192×8192 decode,64×14336×4096 decode,16×8192×8192 decode,bf16→bf16 4096×4096×4096,bf16→bf16 1024×1024×1024,1024×2048×1024,2048×1024×512,512×2048×2048,1024×1024×8192" timeout 330 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| bf16|^\(host" $OUT/bench.log | grep -v "mma_128x128 \|JSON" | awk -F'|' '{print $3,"|",$4,"|",$5,"|",$7}' | head -90
cd /tmp/c1
FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096" timeout 90 ncu -k regex:"nn_(pp128|128x128)_s6" --launch-count 2 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum bundle/bin/bench-gemm_tc > $OUT/ncu-pp.log 2>&1; echo "ncu rc=$?"
grep -E "gemm_wgmma|Duration|gmma_cycles|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|Active Warps|bank_conflicts|inst_executed.sum|Compute \(SM\) Th|Memory Th" $OUT/ncu-pp.log | head -60
