#!/usr/bin/env bash
# H200: the ping-pong 64x256 tile in 2-CTA clusters sharing B (wgmma_pp_64x256_c2) beside the 128x256, pp 128x128
# and pp 128x128 c2 tiles. GPU tests (the clustered tiles, then all cuda::wgmma), compute-sanitizer on the new
# tile's fused cases, tile probe + epilogue sections at 4096^3, 8192x8192x1024, 8192^3; ncu of one plain launch of
# each clustered tile and the 128x256 one at 4096^3.
set -u
mkdir -p /tmp/new && tar xJf .gpu/pp64.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
mkdir -p $OUT/logs
cd /tmp/new
FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=16 _c2:: > $OUT/logs/t-c2.log 2>&1; echo "c2 rc=$?"
grep "test result" $OUT/logs/t-c2.log; grep -E "FAILED|panicked" $OUT/logs/t-c2.log | head -8
for tool in memcheck racecheck synccheck; do
  FERROTILE_REQUIRE_GPU=1 timeout 60 compute-sanitizer --tool $tool bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_pp_64x256_c2::bias_gelu > $OUT/logs/san-$tool.log 2>&1; echo "$tool rc=$?"
done
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|test result" $OUT/logs/san-*.log
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096 epilogue,bf16→bf16 8192×8192×1024 epilogue,bf16→bf16 8192×8192×8192 epilogue" FERROTILE_BENCH_SHAPES=4096x4096x4096,8192x8192x1024,8192x8192x8192 timeout 300 bundle/bin/bench-gemm_tc > $OUT/logs/bench.log 2>&1; echo "bench rc=$?"
grep -E "^\| bf16|^\(fused" $OUT/logs/bench.log | awk -F'|' '{print $3,$4,$5,$7,$8}' | sed 's/median of 7 in turn/in turn/; s/fused bias + GELU/fused/; s/, every tile whole//'
FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_SHAPES=4096x4096x4096 timeout 100 ncu --clock-control none -k regex:"128x256_s4|_c2_" -c 5 --section SpeedOfLight --section MemoryWorkloadAnalysis --metrics lts__t_bytes.sum,smsp__inst_executed.sum -o $OUT/logs/n -f bundle/bin/bench-gemm_tc > $OUT/logs/ncu.log 2>&1; echo "ncu rc=$?"
ncu -i $OUT/logs/n.ncu-rep --page details --csv > $OUT/logs/details.csv 2>&1
python3 - <<'PY'
import csv,os
rows=list(csv.reader(open(os.environ['OUT']+'/logs/details.csv')))
h=rows[0]; ix={c:i for i,c in enumerate(h)}
for r in rows[1:]:
    if len(r)<15: continue
    n=r[ix['Metric Name']]
    if n in ('SM Frequency','Elapsed Cycles','Duration','L2 Cache Throughput','lts__t_bytes.sum','Memory Throughput','Compute (SM) Throughput','L2 Hit Rate'):
        print(r[ix['ID']], r[ix['Kernel Name']][13:], n, r[ix['Metric Value']], r[ix['Metric Unit']])
PY
FERROTILE_REQUIRE_GPU=1 timeout 100 bundle/bin/kernels --include-ignored --test-threads=16 cuda::wgmma > $OUT/logs/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep -c "\.\.\. ok" $OUT/logs/t-wgmma.log; grep -E "FAILED|panicked" $OUT/logs/t-wgmma.log | head -5
cd $OUT && tar czf logs.tgz logs && rm -rf logs
