#!/usr/bin/env bash
# A/B: the wgmma epilogue's short path (new) against the previous build (old).
set -u
mkdir -p /tmp/ab/short /tmp/ab/held
tar xzf .gpu/short.tar.gz -C /tmp/ab/short && tar xzf .gpu/held.tar.gz -C /tmp/ab/held
libs=$(python3 - <<'PY'
import glob, os, sys
d=[]
try:
    import nvidia.cublas as m; d += [os.path.join(p,"lib") for p in m.__path__]
except Exception: pass
for r in sys.path:
    d += glob.glob(os.path.join(r,"nvidia/cublas/lib")) + glob.glob(os.path.join(r,"torch/lib"))
print(":".join(x for x in d if glob.glob(os.path.join(x,"libcublas.so*"))))
PY
)
export LD_LIBRARY_PATH=$libs:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
export FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 8192×8192×1024,bf16→bf16 4096×14336×4096,bf16→bf16 8192×8192×8192"
for r in 1 2; do
  for v in short held; do
    echo "=== $v run $r"; /tmp/ab/$v/bundle/bin/bench-gemm_tc > $OUT/tc_${v}_$r.log 2>&1; grep -v JSON $OUT/tc_${v}_$r.log | tail -40
  done
done
export FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096"
timeout 120 ncu --clock-control none -k regex:gemm_wgmma_bf16_bf16_nn_128x256 -c 1 --metrics sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_elapsed.max,sm__throughput.avg.pct_of_peak_sustained_elapsed /tmp/ab/held/bundle/bin/bench-gemm_tc > $OUT/ncu_held_4096.log 2>&1
grep -E "qgmma|elapsed|inst_exec|throughput" $OUT/ncu_held_4096.log
