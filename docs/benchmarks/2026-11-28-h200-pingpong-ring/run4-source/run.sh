#!/usr/bin/env bash
# H200: where the ping-pong consumer's k-loop waits. ncu PC sampling (SourceCounters) of pp128 and the cooperative
# 128x128 kernel at 1024x2048x8192 (one tile per block, every tile whole), per-SASS-instruction stall samples.
set -u
mkdir -p /tmp/new && tar xJf .gpu/probe.tar.xz -C /tmp/new || echo UNTAR FAILED
cd /tmp/new
mkdir -p $OUT/logs
for kn in pp128 128x128; do
FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_SHAPES=1024x2048x8192 timeout 150 ncu --clock-control none -k regex:"gemm_wgmma_bf16_bf16_nn_${kn}_s6" -c 2 --section SourceCounters --section WarpStateStats --section LaunchStats -o $OUT/logs/$kn -f bundle/bin/bench-gemm_tc > $OUT/logs/ncu-$kn.log 2>&1; echo "ncu $kn rc=$?"
ncu -i $OUT/logs/$kn.ncu-rep --page source --csv --print-source sass --launch-skip 1 --launch-count 1 > $OUT/logs/src-$kn.csv 2> $OUT/logs/src-$kn.err; echo "src rc=$? $(wc -l < $OUT/logs/src-$kn.csv)"; head -c 600 $OUT/logs/src-$kn.err
done
python3 - <<'PY'
import csv,os
for kn in ['pp128','128x128']:
    p=os.environ['OUT']+f'/logs/src-{kn}.csv'
    rows=list(csv.reader(open(p)))
    if not rows: print(kn,'empty'); continue
    hi=[i for i,r in enumerate(rows) if any('Address' in c or 'Source' in c for c in r)]
    h=rows[hi[0]] if hi else rows[0]
    print(kn, 'header:', h[:12])
    col={c:i for i,c in enumerate(h)}
    sk=[c for c in h if 'Sampl' in c]
    print('  sample cols', sk)
    key=sk[0] if sk else None
    if key is None: continue
    data=[r for r in rows[hi[0]+1 if hi else 1:] if len(r)==len(h)]
    def v(r,k):
        try: return float(r[col[k]].replace(',',''))
        except: return 0.0
    tot=sum(v(r,key) for r in data)
    print('  total samples',tot)
    for r in sorted(data,key=lambda r:-v(r,key))[:25]:
        print('  %6.0f %5.1f%%  %s'%(v(r,key),100*v(r,key)/max(tot,1),' | '.join(x[:70] for x in r[:3])))
PY
cd $OUT && tar czf logs.tgz logs && rm -rf logs
