#!/usr/bin/env bash
# H200: the pdl test back to back; the odd shape's factors one at a time; the odd rows.
set -u
mkdir -p /tmp/p && tar xJf .gpu/odd.tar.xz -C /tmp/p || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
cd /tmp/p
FERROTILE_REQUIRE_GPU=1 timeout 60 bundle/bin/kernels --include-ignored --test-threads=8 pdl > $OUT/t-pdl.log 2>&1; echo "pdl rc=$?"
grep "test result" $OUT/t-pdl.log; grep -E "FAILED|panicked|failed" $OUT/t-pdl.log | head -10
FERROTILE_RESULTS=$OUT/results.jsonl FERROTILE_BENCH_ODD_FACTORS=1 FERROTILE_BENCH_ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 4093×4099×4091,bf16→bf16 1021×1019×1031,bf16→bf16 1024×1024×1024" timeout 240 bundle/bin/bench-gemm_tc > $OUT/bench.log 2>&1; echo "=== bench rc=$?"
grep -E "^\| bf16" $OUT/bench.log | awk -F'|' '{print $3,$4,$5,$7}' | head -80
