// Which TMA tensor maps can a 2-D tiled load use? One load of a box from a bf16 tensor whose base is `off` bytes past a
// 256-byte aligned allocation, rows `stride` bytes apart, box `bx` × `by` (128-byte swizzle), L2 promotion `promo`.
// Usage: tmabase OFF STRIDE DIM0 DIM1 BOXROWS PROMO X Y. Prints OK and the first element, or the CUDA error.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>

__global__ void load(const __grid_constant__ CUtensorMap map, int x, int y, unsigned short* out, int n) {
    __shared__ alignas(1024) unsigned short tile[64 * 64];
    __shared__ alignas(8) uint64_t bar;
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    unsigned d = (unsigned)__cvta_generic_to_shared(tile);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
        asm volatile("fence.proxy.async.shared::cta;");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(n * 2));
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(d), "l"(&map), "r"(x), "r"(y), "r"(b) : "memory");
        asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }" ::"r"(b));
        for (int i = 0; i < n; i++) out[i] = tile[i];
    }
}

int main(int argc, char** argv) {
    if (argc < 9) return 2;
    long off = atol(argv[1]), stride = atol(argv[2]), dim0 = atol(argv[3]), dim1 = atol(argv[4]);
    int rows = atoi(argv[5]), promo = atoi(argv[6]), x = atoi(argv[7]), y = atoi(argv[8]);
    cuInit(0);
    unsigned short* buf;
    cudaMalloc(&buf, 64 << 20);
    unsigned short* host = (unsigned short*)malloc(64 << 20);
    for (long i = 0; i < (32 << 20); i++) host[i] = (unsigned short)(i & 0xffff);
    cudaMemcpy(buf, host, 64 << 20, cudaMemcpyHostToDevice);
    unsigned short* out;
    cudaMalloc(&out, 64 * 64 * 2);
    CUtensorMap map;
    cuuint64_t dims[2] = {(cuuint64_t)dim0, (cuuint64_t)dim1};
    cuuint64_t strides[1] = {(cuuint64_t)stride};
    cuuint32_t box[2] = {64, (cuuint32_t)rows};
    cuuint32_t es[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (char*)buf + off, dims, strides, box, es,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                        promo == 256 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : promo == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B : CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) { printf("encode failed %d\n", (int)r); return 1; }
    load<<<1, 32>>>(map, x, y, out, 64 * rows);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("off %ld stride %ld dims %ld×%ld box 64×%d promo %d at (%d,%d): %s\n", off, stride, dim0, dim1, rows, promo, x, y, cudaGetErrorString(e)); return 1; }
    unsigned short first;
    cudaMemcpy(&first, out, 2, cudaMemcpyDeviceToHost);
    printf("off %ld stride %ld dims %ld×%ld box 64×%d promo %d at (%d,%d): OK first %u\n", off, stride, dim0, dim1, rows, promo, x, y, first);
    return 0;
}
