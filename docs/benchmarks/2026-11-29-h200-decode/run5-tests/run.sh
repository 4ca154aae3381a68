#!/usr/bin/env bash
# H200, the committed build (run 3's bundle): the GPU cases of the other wgmma kernels (their PTX changed only in the
# order of commutative predicate operations), within what is left of the session's device time.
set -u
mkdir -p /tmp/new && tar xJf .gpu/head.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $OUT/gpu.txt
cd /tmp/new
FERROTILE_REQUIRE_GPU=1 timeout 150 bundle/bin/kernels --include-ignored --test-threads=16 --skip emulator --skip swap cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"
grep "test result" $OUT/t-wgmma.log; echo "ok lines: $(grep -c '\.\.\. ok' $OUT/t-wgmma.log)"; grep -E "FAILED|panicked" $OUT/t-wgmma.log | head -5
gzip $OUT/t-wgmma.log
