#!/usr/bin/env bash
# H200: the clustered ping-pong tile with the remote release at CTA scope (CUTLASS's), probe + epilogue at 4096^3,
# its SASS (the release/fence instructions), ncu of one plain c2 launch at 4096^3.
set -u
mkdir -p /tmp/new && tar xJf .gpu/c2b.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
mkdir -p $OUT/logs
cuobjdump -sass -fun gemm_wgmma_bf16_bf16_nn_pp128_c2_s6 .gpu/c2b.cubin > $OUT/logs/c2.sass 2>&1; echo "sass rc=$? $(wc -l < $OUT/logs/c2.sass)"
grep -n "MEMBAR\|FENCE\|SYNCS\|UCGABAR\|CCTL\|ERRBAR\|UTMALDG\|MAPA" $OUT/logs/c2.sass | head -60
cd /tmp/new
export FERROTILE_RESULTS=$OUT/results.jsonl
FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096 epilogue" FERROTILE_BENCH_SHAPES=4096x4096x4096,8192x8192x1024 timeout 200 bundle/bin/bench-gemm_tc > $OUT/logs/bench.log 2>&1; echo "bench rc=$?"
grep -E "^\| bf16|^\(fused" $OUT/logs/bench.log | awk -F'|' '{print $3,$4,$5,$7,$8}' | sed 's/median of 7 in turn/in turn/; s/fused bias + GELU/fused/'
FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_SHAPES=4096x4096x4096 timeout 150 ncu --clock-control none -k regex:pp128_c2 -c 1 --section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats --section SourceCounters --section MemoryWorkloadAnalysis -o $OUT/logs/c2 -f bundle/bin/bench-gemm_tc > $OUT/logs/ncu.log 2>&1; echo "ncu rc=$?"
ncu -i $OUT/logs/c2.ncu-rep --page details --csv > $OUT/logs/details.csv 2>&1
ncu -i $OUT/logs/c2.ncu-rep --page source --csv --print-source sass > $OUT/logs/src.csv 2>&1
python3 - <<'PY'
import csv,os
L=os.environ['OUT']+'/logs/'
rows=list(csv.reader(open(L+'details.csv')))
h=rows[0]; ix={c:i for i,c in enumerate(h)}
for r in rows[1:]:
    if len(r)!=len(h): continue
    n=r[ix['Metric Name']]
    if any(k in n for k in ['Duration','Frequency','Grid Size','Cluster','Registers','Throughput','Stall','Warp Cycles','L2 Hit','Issued Warp','Eligible','Waves']):
        print(n,'=',r[ix['Metric Value']],r[ix['Metric Unit']])
try:
    rows=list(csv.reader(open(L+'src.csv')))
    # find header row with 'Source'
    hi=[i for i,r in enumerate(rows) if 'Source' in r][0]
    h=rows[hi]; ix={c:i for i,c in enumerate(h)}
    samp=[c for c in h if c.startswith('Warp Stall Sampling (All')][0]
    data=[r for r in rows[hi+1:] if len(r)==len(h)]
    data.sort(key=lambda r:-float(r[ix[samp]] or 0))
    tot=sum(float(r[ix[samp]] or 0) for r in data)
    print('total samples',tot)
    for r in data[:25]:
        print(r[ix[samp]], r[ix['Address']] if 'Address' in ix else '', r[ix['Source']][:90])
except Exception as e: print('src parse failed',e)
PY
cd $OUT && tar czf logs.tgz logs && rm -rf logs
