#!/usr/bin/env bash
# H200, the committed kernels: where 4096×4099×4096 (`n` odd) spends its time against 4096³ — ncu's duration of each
# kernel of one Auto call of each (the staging copy of `B`, the wgmma kernel storing `C` by its threads).
set -u
mkdir -p $OUT/logs /tmp/new && tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
cd /tmp/new
# FERROTILE_BENCH_PROFILE: only Auto at the shape, three plain calls, three with a bias, three with bias + GELU.
for s in 4096x4096x4096 4096x4099x4096 4096x4096x4091 4093x4099x4091 1021x1019x1031 1024x1024x1024; do
  FERROTILE_BENCH_PROFILE=$s timeout 90 ncu --metrics gpu__time_duration.sum --kernel-name regex:"gemm_" --csv bundle/bin/bench-gemm_tc > $OUT/logs/ncu-$s.csv 2> $OUT/logs/ncu-$s.err; echo "ncu $s rc=$?"
  python3 - "$OUT/logs/ncu-$s.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]; k = head.index("Kernel Name"); v = head.index("Metric Value"); u = head.index("Metric Unit")
for r in rows[1:]:
    t = float(r[v].replace(",", "")) * (1e-3 if r[u] == "nsecond" else 1.0 if r[u] == "usecond" else 1e3)
    print(f"  {r[k][:56]:56s} {t:9.1f} us")
PY
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
