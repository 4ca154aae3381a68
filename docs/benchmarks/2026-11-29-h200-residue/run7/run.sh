#!/usr/bin/env bash
# H200, the committed build: a row-major `B` with rows 16 bytes off 128-byte lines (ldb 4104) at m = 1024 (read as it
# lies), 2048 and 4096 (restaged, RESTAGE_B_MIN_ROWS): Auto and the padded cases against the aligned call, two rounds.
set -u
mkdir -p $OUT/logs /tmp/new && tar xJf .gpu/new.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/logs/gpu.txt
cd /tmp/new
ONLY="bf16→bf16 4096×4096×4096,bf16→bf16 4096×4104×4096,bf16→bf16 2048×4096×4096,bf16→bf16 2048×4104×4096,bf16→bf16 1024×4096×4096,bf16→bf16 1024×4104×4096"
for r in 1 2; do
  FERROTILE_RESULTS=$OUT/logs/results.jsonl FERROTILE_BENCH_ONLY="$ONLY" timeout 200 bundle/bin/bench-gemm_tc > $OUT/logs/pitch$r.log 2>&1; echo "bench round $r rc=$?"
  grep -E "vs aligned|padded to 16 B \(no staging\), C rows|padded to 128 B \(no|auto \(" $OUT/logs/pitch$r.log | grep -v JSON | awk -F'|' '{print $3,$4,$5,$7}'
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs
