#!/usr/bin/env bash
# H200: how long the staging kernels of the odd shapes take on the device (ncu, gpu__time_duration), and the calls' gaps.
set -u
mkdir -p /tmp/p && tar xJf .gpu/thr4.tar.xz -C /tmp/p || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/p
which nsys ncu
for sh in "bf16→bf16 1024×1024×1024,bf16→bf16 1021×1019×1031" "bf16→bf16 4096×4096×4096,bf16→bf16 4093×4099×4091"; do
  tag=$(echo "$sh" | sed 's/.*,bf16→bf16 //; s/×/x/g')
  FERROTILE_BENCH_ONLY="$sh" timeout 150 ncu --kernel-name regex:'gemm_stage|gemm_wgmma' --launch-skip 0 --launch-count 400 --metrics gpu__time_duration.sum --csv bundle/bin/bench-gemm_tc > $OUT/ncu-$tag.csv 2> $OUT/ncu-$tag.err; echo "ncu $tag rc=$?"
done
python3 - "$OUT" <<'PY'
import csv, sys, glob, collections
for f in sorted(glob.glob(sys.argv[1] + '/ncu-*.csv')):
    rows = [r for r in csv.reader(open(f)) if len(r) > 10]
    if not rows: print(f, 'no rows'); continue
    h = rows[0]; ki = h.index('Kernel Name'); vi = h.index('Metric Value'); gi = h.index('Grid Size') if 'Grid Size' in h else None
    seq = [(r[ki][:60], r[gi] if gi is not None else '', r[vi]) for r in rows[1:]]
    print(f.split('/')[-1], len(seq), 'launches')
    # print the sequence around the first staging launch
    first = next((i for i, s in enumerate(seq) if 'stage' in s[0]), None)
    if first is None: print(' no stage'); continue
    for s in seq[first:first + 12]: print('  ', s)
    d = collections.defaultdict(list)
    for s in seq: d[(s[0], s[1])].append(float(s[2].replace(',', '')))
    for k, v in d.items():
        v.sort(); print('  median', k, v[len(v)//2], 'n', len(v))
PY
