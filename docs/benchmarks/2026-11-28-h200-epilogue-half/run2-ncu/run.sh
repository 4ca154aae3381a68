#!/usr/bin/env bash
# H200, the epilogue build (½ folded): ncu of the 4096^3 epilogue rows (plain, fused bias + GELU, fused bias alone),
# the 128x256 kernel: time, instructions, special-function instructions, tensor-pipe activity, warp stall reasons.
set -u
mkdir -p /tmp/new && tar xJf .gpu/epi.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/new
FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096 epilogue" FERROTILE_BENCH_EPILOGUE_PARTS=1 timeout 400 ncu --clock-control none -k regex:gemm_wgmma_bf16_bf16_nn_128x256 -c 215 --section WarpStateStats --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__inst_executed_pipe_xu.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second --csv --page raw bundle/bin/bench-gemm_tc > $OUT/ncu.csv 2> $OUT/ncu.err; echo "ncu rc=$?"
tail -3 $OUT/ncu.err; wc -l $OUT/ncu.csv
python3 - <<'PY'
import csv,os,collections
rows=list(csv.reader(open(os.environ['OUT']+'/ncu.csv')))
start=[i for i,r in enumerate(rows) if r and r[0]=='ID'][0]
hdr=rows[start]; data=rows[start+2:]
col={h:i for i,h in enumerate(hdr)}
def g(r,k):
    try: return float(r[col[k]].replace(',',''))
    except: return float('nan')
stall=[h for h in hdr if h.startswith('smsp__average_warp_latency_issue_stalled') or h.startswith('smsp__average_warps_issue_stalled')]
print('stall columns', len(stall))
groups=collections.OrderedDict()
for r in data:
    xu=g(r,'sm__inst_executed_pipe_xu.sum'); inst=g(r,'smsp__inst_executed.sum')
    key=(round(xu/1e5), round(inst/1e6))
    groups.setdefault(key,[]).append(r)
for key,rs in groups.items():
    t=sorted(g(r,'gpu__time_duration.sum') for r in rs)
    print('xu/1e5,inst/1e6',key,'launches',len(rs),'time med',t[len(t)//2],'tensor %',round(sum(g(r,'sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active') for r in rs)/len(rs),1),'clk',round(sum(g(r,'sm__cycles_elapsed.avg.per_second') for r in rs)/len(rs)/1e6))
    s=[(h, sum(g(r,h) for r in rs)/len(rs)) for h in stall]
    s=[x for x in s if x[1]==x[1] and x[1]>0.05]
    s.sort(key=lambda x:-x[1])
    for h,v in s[:10]: print('   ',h.replace('smsp__average_warp_latency_issue_stalled_','').replace('smsp__average_warps_issue_stalled_',''),round(v,3))
PY
gzip -f $OUT/ncu.csv
