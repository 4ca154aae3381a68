#!/usr/bin/env bash
# Dynamic unit queue (new.tar.xz) against the static walk (static.tar.xz, same swapped tiles and split fix), H100.
set -u
for b in new static; do mkdir -p /tmp/$b && tar xJf .gpu/$b.tar.xz -C /tmp/$b || echo UNTAR FAILED $b; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
run() { # bundle label only limit
  (cd /tmp/$1 && FERROTILE_RESULTS=$OUT/results-$1-$2.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_ONLY="$3" timeout $4 bundle/bin/bench-gemm_tc > $OUT/bench-$1-$2.log 2>&1; echo "=== $1 $2 rc=$?")
  grep -E "^\| (bf16|tf32)" $OUT/bench-$1-$2.log | awk -F'|' '{print $3,$4,$5,$7}' | grep -v "mma_128x128\|pp_128" | head -60
}
run new dec "1×8192×8192 decode,64×14336×4096 decode" 130
run static dec "1×8192×8192 decode,64×14336×4096 decode" 130
run new big "bf16→bf16 4096×4096×4096,16×8192×8192 decode,64×8192×8192 decode" 170
run static big "bf16→bf16 4096×4096×4096" 70
