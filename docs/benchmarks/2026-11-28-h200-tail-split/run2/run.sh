#!/usr/bin/env bash
# H200, second call on the same machine: the rows the first call's 380 s cut off.
set -u
mkdir -p /tmp/h2
[ -x /tmp/h2/bundle/bin/bench-gemm_tc ] || tar xJf .gpu/new.tar.xz -C /tmp/h2 || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv | tee $OUT/gpu.txt
cd /tmp/h2
ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 5120×5120×4096,bf16→bf16 4093×4099×4091,bf16→bf16 1024×1024×1024,bf16→bf16 1021×1019×1031,decode,64×1024×1024×64,512×128×128×128,64×512×512×512,256×256×1024×64"
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_BACK_TO_BACK=1 FERROTILE_BENCH_ONLY="$ONLY" timeout 330 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| (bf16|f16|tf32)" $OUT/bench.log | grep -v "mma_128x128\|pp_128\|128x128:\|split" | awk -F'|' '{print $2,$3,$4,$5,$7}' | head -120
