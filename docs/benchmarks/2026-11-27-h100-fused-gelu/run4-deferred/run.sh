#!/usr/bin/env bash
# The activation deferred to the producer warpgroup's spare warps (wgmma_deferred_128x256, Auto's pick for a GELU into
# bf16): GPU wgmma tests, memcheck and racecheck on its fused cases, three rounds of the bench's epilogue rows (Auto =
# deferred, the 128x256 tile forced = the consumers' own epilogue, plain calls of both; records of round 1), ncu of the
# 8192x8192x1024 fused calls of both tiles.
set -u
mkdir -p /tmp/ab/new
tar xJf .gpu/new.tar.xz -C /tmp/ab/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
FERROTILE_REQUIRE_GPU=1 timeout 240 bundle/bin/kernels --include-ignored --test-threads=8 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked" $OUT/t-wgmma.log | head -10
for tool in memcheck racecheck; do
  FERROTILE_REQUIRE_GPU=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_deferred_128x256::bias_ > $OUT/sanitizer-$tool.log 2>&1; echo "$tool rc=$?"; grep -E "test result|ERROR SUMMARY|RACECHECK SUMMARY" $OUT/sanitizer-$tool.log | tail -3
done
for r in 1 2 3; do
  echo "=== round $r"
  if [ $r = 1 ]; then export FERROTILE_RESULTS=$OUT/results.jsonl; else unset FERROTILE_RESULTS; fi
  FERROTILE_BENCH_ONLY="epilogue" timeout 200 bundle/bin/bench-gemm_tc > $OUT/gemm_tc-$r.log 2>&1; echo "rc=$?"
  grep -E "^\| (bf16|f16)" $OUT/gemm_tc-$r.log | grep -E "fused|plain|separate" | grep -v "pp_128" | awk -F'|' '{print $2,$3,$4,$5,$7,$8}'
done
unset FERROTILE_RESULTS
FERROTILE_BENCH_ONLY="bf16→bf16 8192×8192×1024 epilogue" timeout 150 ncu --clock-control none -k regex:gemm_wgmma_bf16_bf16_nn_ -c 215 --metrics gpu__time_duration.sum,sm__inst_executed_pipe_xu.sum,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active bundle/bin/bench-gemm_tc > $OUT/ncu.log 2>&1; echo "ncu rc=$?"
python3 - <<'PY'
import re,os
txt=open(os.environ['OUT']+'/ncu.log').read()
blocks=re.split(r'\n  (gemm_wgmma\S+)', txt)
rows=[]
for name,b in zip(blocks[1::2], blocks[2::2]):
    d={'k':name.split('(')[0][12:]}
    for k in ['gpu__time_duration.sum','sm__inst_executed_pipe_xu.sum','smsp__inst_executed.sum','sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active']:
        m=re.search(re.escape(k)+r'\s+(\S+)\s+([\d.,]+)',b)
        if m: d[k.split('.')[0].split('__')[-1][:18]]=m.group(2)
    rows.append(d)
print(len(rows))
seen={}
for i,d in enumerate(rows):
    seen.setdefault(d['k'],[]).append(i)
for k,ix in seen.items():
    for i in ix[-2:]: print(i, rows[i])
PY
cd $OUT && gzip -f ncu.log && tar czf rest.tgz t-*.log sanitizer-*.log && rm -f t-*.log sanitizer-*.log; ls $OUT
