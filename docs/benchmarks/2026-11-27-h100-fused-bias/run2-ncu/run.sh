#!/usr/bin/env bash
# ncu of the plain and fused wgmma calls at 8192x8192x1024 (same build as fused.sh, bundle already untarred).
set -u
cd /tmp/ab/new || exit 1
FERROTILE_BENCH_ONLY="bf16→bf16 8192×8192×1024 epilogue" timeout 200 ncu --clock-control none -k regex:gemm_wgmma -c 215 --metrics gpu__time_duration.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.sum,smsp__inst_executed.sum,smsp__average_warp_latency_issue_stalled_barrier.ratio bundle/bin/bench-gemm_tc > $OUT/ncu.log 2>&1; echo "ncu rc=$?"
grep -E "gemm_wgmma|duration|gmma|pipe_xu|inst_executed.sum|stalled" $OUT/ncu.log | awk 'NR<=12 || NR%60==0' | head -40
python3 - <<'PY'
import re,os
txt=open(os.environ['OUT']+'/ncu.log').read()
blocks=re.split(r'\n  gemm_wgmma', txt)[1:]
rows=[]
for b in blocks:
    d={}
    for k in ['gpu__time_duration.sum','sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active','sm__inst_executed_pipe_xu.sum','smsp__inst_executed.sum']:
        m=re.search(re.escape(k)+r'\s+(\S+)\s+([\d.,]+)',b)
        if m: d[k.split('.')[0].split('__')[1]]=(m.group(1),m.group(2))
    rows.append(d)
print(len(rows))
for i in [0,1,2,100,200,204,205,206,207,210,214]:
    if i < len(rows): print(i, rows[i])
PY
