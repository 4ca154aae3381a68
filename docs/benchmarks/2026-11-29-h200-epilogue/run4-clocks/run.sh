#!/usr/bin/env bash
# H200: the 128x256 and ping-pong 128x128 (and cooperative 128x128) kernels at 4096^3, first plain launch of the tile
# probe, ncu with clocks locked at base (--clock-control base) and not locked, twice each: cycles, duration, SM clock.
set -u
mkdir -p /tmp/new && tar xJf .gpu/prof.tar.xz -C /tmp/new || echo UNTAR FAILED
cd /tmp/new
mkdir -p $OUT/logs
for cc in base none; do for r in 1 2; do for kn in 128x256_s4 pp128_s6 128x128_s6; do
FERROTILE_BENCH_ONLY=none FERROTILE_BENCH_SHAPES=4096x4096x4096 timeout 100 ncu --clock-control $cc -k regex:"gemm_wgmma_bf16_bf16_nn_${kn}" -c 1 --section SpeedOfLight --metrics lts__t_bytes.sum,sm__cycles_active.avg -o $OUT/logs/$cc-$r-$kn -f bundle/bin/bench-gemm_tc > $OUT/logs/ncu-$cc-$r-$kn.log 2>&1
ncu -i $OUT/logs/$cc-$r-$kn.ncu-rep --page details --csv > $OUT/logs/d-$cc-$r-$kn.csv 2>&1
python3 - "$OUT/logs/d-$cc-$r-$kn.csv" "$cc $r $kn" <<'PY'
import csv,sys
rows=list(csv.reader(open(sys.argv[1]))); h=rows[0]; ix={c:i for i,c in enumerate(h)}
v={r[ix['Metric Name']]:r[ix['Metric Value']] for r in rows[1:] if len(r)>=len(h)-5}
print(sys.argv[2], '| cycles', v.get('Elapsed Cycles'), '| us', v.get('Duration'), '| GHz', v.get('SM Frequency'), '| L2 bytes', v.get('lts__t_bytes.sum'), '| L2 %', v.get('L2 Cache Throughput'))
PY
done; done; done
cd $OUT && tar czf logs.tgz logs/*.csv && rm -rf logs
