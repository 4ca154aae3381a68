#!/usr/bin/env bash
# H200: power and SM clock while each wgmma tile runs at 4096^3 (the tile probe: each tile forced, every tile whole,
# plain then fused, timed ~0.3 s each). nvidia-smi samples every 50 ms; bench rows timestamped as they print.
set -u
mkdir -p /tmp/new && tar xJf .gpu/prof.tar.xz -C /tmp/new || echo UNTAR FAILED
cd /tmp/new
mkdir -p $OUT/logs
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu --format=csv,noheader,nounits -lms 50 > $OUT/logs/smi.csv &
SMI=$!
sleep 1
for r in 1 2; do
FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_SHAPES=4096x4096x4096 timeout 120 bundle/bin/bench-gemm_tc 2>&1 | while IFS= read -r line; do echo "$(date +%Y/%m/%d\ %H:%M:%S.%3N) $line"; done > $OUT/logs/bench-$r.log
done
sleep 1; kill $SMI
python3 - <<'PY'
import os,datetime
L=os.environ['OUT']+'/logs/'
def t(s): return datetime.datetime.strptime(s.strip(),'%Y/%m/%d %H:%M:%S.%f').timestamp()
smi=[]
for l in open(L+'smi.csv'):
    p=[x.strip() for x in l.split(',')]
    try: smi.append((t(p[0]),float(p[1]),float(p[2]),float(p[3])))
    except: pass
for r in (1,2):
    prev=None
    for l in open(L+f'bench-{r}.log'):
        ts=t(l[:23]); row=l[24:].strip()
        if row.startswith('| bf16') and prev is not None:
            # the second half of the window since the previous row: the timing loop
            a=prev+(ts-prev)/2
            w=[x for x in smi if a<=x[0]<=ts]
            if w:
                n=len(w); cells=[c.strip() for c in row.split('|')]
                print('round %d %-55s %s ms  power %.0f W  SM %.0f MHz  %d samples'%(r,cells[3][:55],cells[4],sum(x[1] for x in w)/n,sum(x[2] for x in w)/n,n))
        if row.startswith('|'): prev=ts
PY
cd $OUT && tar czf logs.tgz logs && rm -rf logs
