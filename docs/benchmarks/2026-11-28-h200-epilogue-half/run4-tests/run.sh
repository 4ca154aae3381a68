#!/usr/bin/env bash
# H200: GPU tests of the committed build (the ½-folded epilogue, "epi"): cuda::wgmma, cuda::mma, pdl; summaries last.
set -u
mkdir -p /tmp/new && tar xJf .gpu/epi.tar.xz -C /tmp/new || echo UNTAR FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cd /tmp/new
FERROTILE_REQUIRE_GPU=1 timeout 290 bundle/bin/kernels --include-ignored --test-threads=16 cuda::wgmma > $OUT/t-wgmma.log 2>&1; echo "wgmma rc=$?"
FERROTILE_REQUIRE_GPU=1 timeout 30 bundle/bin/kernels --include-ignored --test-threads=16 cuda::mma > $OUT/t-mma.log 2>&1; echo "mma rc=$?"
FERROTILE_REQUIRE_GPU=1 timeout 30 bundle/bin/kernels --include-ignored --test-threads=16 pdl > $OUT/t-pdl.log 2>&1; echo "pdl rc=$?"
for f in wgmma mma pdl; do echo "== $f"; grep -c "\.\.\. ok" $OUT/t-$f.log; grep -E "FAILED|panicked" $OUT/t-$f.log | head -5; grep "test result" $OUT/t-$f.log; done
gzip -f $OUT/t-*.log
