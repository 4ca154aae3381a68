#!/usr/bin/env bash
# The SASS of the residue kernel around the offset compute-sanitizer reported.
cuobjdump -sass -fun gemm_wgmma_bf16_bf16_nn_128x128_r_s6 .gpu/r.cubin > /tmp/r.sass 2>&1; echo "cuobjdump rc=$?"
grep -n "/\*1d[0-9a-f]0\*/\|/\*1e[0-2]0\*/" /tmp/r.sass | head -40
grep -n "/\*1c[0-9a-f]0\*/" /tmp/r.sass | tail -12
