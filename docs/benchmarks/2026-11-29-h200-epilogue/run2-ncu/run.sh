#!/usr/bin/env bash
# H200: where the fused epilogue's time goes on the 128x256 tile at 4096^3. ncu (PC sampling, SourceCounters,
# WarpStateStats) of Auto's three plain, three bias and three bias+GELU launches (FERROTILE_BENCH_PROFILE);
# per-SASS-instruction stall samples of the second launch of each, and their differences.
set -u
mkdir -p /tmp/new && tar xJf .gpu/prof.tar.xz -C /tmp/new || echo UNTAR FAILED
cd /tmp/new
mkdir -p $OUT/logs
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
FERROTILE_BENCH_PROFILE=4096x4096x4096 timeout 300 ncu --clock-control none -k regex:gemm_wgmma_bf16_bf16_nn_128x256 -c 9 --section SourceCounters --section WarpStateStats --section SpeedOfLight --section LaunchStats -o $OUT/logs/epi -f bundle/bin/bench-gemm_tc > $OUT/logs/ncu.log 2>&1; echo "ncu rc=$?"; tail -3 $OUT/logs/ncu.log
ncu -i $OUT/logs/epi.ncu-rep --page details --csv > $OUT/logs/details.csv 2>&1; echo "details rc=$?"
for i in 1 4 7; do
  ncu -i $OUT/logs/epi.ncu-rep --page source --csv --print-source sass --launch-skip $i --launch-count 1 > $OUT/logs/src-$i.csv 2> $OUT/logs/src-$i.err; echo "src $i rc=$? $(wc -l < $OUT/logs/src-$i.csv)"
done
python3 - <<'PY'
import csv,os,collections
L=os.environ['OUT']+'/logs/'
# per-launch durations and a few metrics
rows=list(csv.reader(open(L+'details.csv')))
h=rows[0]; ix={c:i for i,c in enumerate(h)}
want=['Duration','SM Frequency','Compute (SM) Throughput','Warp Cycles Per Issued Instruction','Issued Warp Per Scheduler','No Eligible']
per=collections.defaultdict(dict)
for r in rows[1:]:
    if len(r)!=len(h): continue
    name=r[ix['Metric Name']]
    if any(w==name for w in want) or 'Stall' in name:
        per[r[ix['ID']]][name]=r[ix['Metric Value']]+' '+r[ix['Metric Unit']]
for lid in sorted(per,key=int):
    print('launch',lid,'; '.join(f'{k}={v}' for k,v in per[lid].items() if k in want))
def load(i):
    rows=list(csv.reader(open(L+f'src-{i}.csv')))
    hi=[j for j,r in enumerate(rows) if 'Address' in r]
    h=rows[hi[0]]; col={c:j for j,c in enumerate(h)}
    data=[r for r in rows[hi[0]+1:] if len(r)==len(h)]
    return h,col,data
res={}
for i in (1,4,7):
    h,col,data=load(i); res[i]=(h,col,data)
h,col,_=res[1]
key=[c for c in h if c.startswith('Warp Stall Sampling (All')][0]
print('columns:', [c for c in h if 'stall' in c.lower()][:40])
def num(x):
    try: return float(x.replace(',',''))
    except: return 0.0
maps={}
for i in (1,4,7):
    h,col,data=res[i]
    maps[i]={r[col['Address']]:(num(r[col[key]]),r[col['Source']]) for r in data}
    print('launch',i,'samples',sum(v[0] for v in maps[i].values()))
for a,b,lab in ((1,4,'bias - plain'),(4,7,'gelu - bias')):
    addrs=set(maps[a])|set(maps[b])
    d=sorted(((maps[b].get(x,(0,''))[0]-maps[a].get(x,(0,''))[0],x,(maps[b].get(x) or maps[a].get(x))[1]) for x in addrs),reverse=True)
    print('==',lab,'total',sum(t[0] for t in d))
    for t in d[:30]: print('  %+6.0f %s %s'%t)
PY
cd $OUT && tar czf logs.tgz logs/*.csv logs/*.log && rm -rf logs
