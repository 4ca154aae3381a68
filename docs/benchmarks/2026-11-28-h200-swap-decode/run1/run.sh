#!/usr/bin/env bash
# H200: decode rows of the committed build (Auto = the swapped 128x64 tile), one call and ten back to back; ncu of 1x8192^2.
set -u
mkdir -p /tmp/sw && tar xJf .gpu/new.tar.xz -C /tmp/sw || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/sw
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_ONLY="decode" timeout 330 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| (bf16|tf32)" $OUT/bench.log | awk -F'|' '{print $3,$4,$5,$7}' | grep -v "mma_128x128 \|pp_128" | head -60
FERROTILE_BENCH_ONLY="1×8192×8192 decode" timeout 100 ncu -k regex:gemm_wgmma --launch-count 3 --section SpeedOfLight --metrics sm__cycles_active.min,sm__cycles_active.max,sm__cycles_active.avg,sm__cycles_elapsed.max,dram__throughput.avg.pct_of_peak_sustained_elapsed bundle/bin/bench-gemm_tc > $OUT/ncu-decode.log 2>&1; echo "ncu rc=$?"
grep -E "gemm_wgmma|Duration|DRAM Through|sm__cycles|dram__|Elapsed Cycles" $OUT/ncu-decode.log | head -40
