#!/usr/bin/env bash
# wgmma fused GELU of 16-bit outputs with tanh.approx.f16x2 (one special-function op per pair) (new) against the
# committed build 53ec6fe (old): GPU wgmma tests, memcheck on bias_gelu cases, bench epilogue rows alternating
# new old new old (records of new round 1), ncu of the 8192x8192x1024 plain+fused calls of both (XU instructions).
set -u
mkdir -p /tmp/ab/new /tmp/ab/old
tar xJf .gpu/new.tar.xz -C /tmp/ab/new && tar xJf .gpu/old.tar.xz -C /tmp/ab/old || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/ab/new
FERROTILE_REQUIRE_GPU=1 timeout 230 bundle/bin/kernels --include-ignored --test-threads=8 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma tests rc=$?"; grep "test result" $OUT/t-wgmma.log; grep -E "FAILED|panicked" $OUT/t-wgmma.log | head -10
FERROTILE_REQUIRE_GPU=1 timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 bundle/bin/kernels --include-ignored --test-threads=1 cuda::wgmma::bf16_bf16::nn::wgmma_128x256::bias_gelu > $OUT/sanitizer-memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "test result|ERROR SUMMARY" $OUT/sanitizer-memcheck.log | tail -2
for r in 1 2; do
  for v in new old; do
    echo "=== $v round $r"
    if [ $r$v = 1new ]; then export FERROTILE_RESULTS=$OUT/results.jsonl; else unset FERROTILE_RESULTS; fi
    ( cd /tmp/ab/$v && FERROTILE_BENCH_ONLY="epilogue" timeout 100 bundle/bin/bench-gemm_tc > $OUT/gemm_tc-$v$r.log 2>&1 ); echo "rc=$?"
    grep -E "^\| (bf16|f16)" $OUT/gemm_tc-$v$r.log | grep -E "fused|plain|separate" | awk -F'|' '{print $2,$3,$4,$5,$7,$8}'
  done
done
unset FERROTILE_RESULTS
for v in new old; do
  ( cd /tmp/ab/$v && FERROTILE_BENCH_ONLY="bf16→bf16 8192×8192×1024 epilogue" timeout 120 ncu --clock-control none -k regex:gemm_wgmma_bf16_bf16_nn_128x256 -c 215 --metrics gpu__time_duration.sum,sm__inst_executed_pipe_xu.sum,smsp__inst_executed.sum bundle/bin/bench-gemm_tc > $OUT/ncu-$v.log 2>&1 ); echo "ncu $v rc=$?"
  V=$v python3 - <<'PY'
import re,os
txt=open(os.environ['OUT']+'/ncu-'+os.environ['V']+'.log').read()
blocks=re.split(r'\n  gemm_wgmma', txt)[1:]
rows=[]
for b in blocks:
    d={}
    for k in ['gpu__time_duration.sum','sm__inst_executed_pipe_xu.sum','smsp__inst_executed.sum']:
        m=re.search(re.escape(k)+r'\s+(\S+)\s+([\d.,]+)',b)
        if m: d[k.split('.')[0].split('__')[1]]=m.group(2)
    rows.append(d)
print(len(rows))
for i in [0,100,150,200,205,210,214]:
    if i < len(rows): print(i, rows[i])
PY
done
cd $OUT && gzip -f ncu-*.log && tar czf rest.tgz t-*.log && rm -f t-*.log; ls $OUT
