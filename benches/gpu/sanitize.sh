#!/usr/bin/env bash
# compute-sanitizer over the bundle's CUDA tests at the emulator-sized shapes
# (the big GPU-only sizes are skipped: the sanitizer slows kernels 10-100x).
# memcheck over every kernel; racecheck and synccheck over the shared-memory
# kernels. Run from the repo root on a GPU machine after `cargo xtask gpu-bundle`.
set -uo pipefail
out=${OUT:-/tmp/ferrotile-sanitize}
mkdir -p "$out"
big=(--skip 1000 --skip 1024 --skip 4096 --skip 8192 --skip 1920 --skip 67108864 --skip 4093
     --skip 8191 --skip 67108863 --skip 2048 --skip 1021 --skip 777 --skip 1031 --skip 1080
     --skip stress::gpu_)
t=bundle/bin/kernels
export FERROTILE_REQUIRE_GPU=1
summary() { grep -E "ERROR SUMMARY|test result" "$1" | tail -2 | sed "s|^|$2: |"; }
compute-sanitizer --tool memcheck --print-limit 20 $t cuda:: "${big[@]}" --test-threads=8 > "$out/memcheck.log" 2>&1
summary "$out/memcheck.log" memcheck
for tool in racecheck synccheck; do
  compute-sanitizer --tool $tool --print-limit 20 $t cuda:: "${big[@]}" --skip blur_naive --skip blur_tiled \
    --skip blur_fast --skip blur_slide --skip naive --skip vec_add --skip rgb_to_gray --test-threads=8 > "$out/$tool.log" 2>&1
  summary "$out/$tool.log" $tool
done
