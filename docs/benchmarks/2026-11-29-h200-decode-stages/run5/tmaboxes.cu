// Which TMA box reads a 8192 x 8192 bf16 matrix fastest when 128 blocks each stream a 256-byte-wide column strip
// of half its rows (the narrow decode tile's pattern): swizzle mode, box shape and L2 promotion varied; stages of
// 32 KB, 4 in flight, one thread issuing. Against a device copy. nvcc -O3 -arch=sm_90a tmaboxes.cu -lcuda
#include <cstdio>
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
const int N = 8192;

__device__ __forceinline__ uint32_t smem(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void bar_init(uint64_t* b) { asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(b))); }
__device__ __forceinline__ void expect(uint64_t* b, uint32_t tx) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(b)), "r"(tx) : "memory"); }
__device__ __forceinline__ void wait(uint64_t* b, uint32_t parity) {
  asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W;\n}" :: "r"(smem(b)), "r"(parity) : "memory"); }
__device__ __forceinline__ void box(void* dst, const CUtensorMap* map, int x, int y, uint64_t* b) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
    :: "r"(smem(dst)), "l"(map), "r"(x), "r"(y), "r"(smem(b)) : "memory"); }

// Block b: columns [128 (b % 64), +128), rows of part b / 64 (of 2); a stage = `rows` rows of the strip in
// boxes of bx columns x by rows.
__global__ void strips(const __grid_constant__ CUtensorMap map, int bx, int by, int rows, int S) {
  extern __shared__ __align__(1024) uint8_t sh[];
  __shared__ uint64_t full[16];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < S; s++) bar_init(&full[s]);
  asm volatile("fence.proxy.async.shared::cta;");
  int strip = blockIdx.x % 64, part = blockIdx.x / 64, y0 = part * (N / 2), steps = (N / 2) / rows;
  int stage = 128 * rows * 2, boxb = bx * by * 2;
  for (int i = 0; i < steps + S; i++) {
    int s = i % S;
    if (i >= S) wait(&full[s], ((i / S) - 1) & 1);
    if (i < steps) {
      expect(&full[s], stage);
      int nbox = 0;
      for (int yy = 0; yy < rows; yy += by)
        for (int xx = 0; xx < 128; xx += bx) { box(sh + s * stage + nbox * boxb, &map, strip * 128 + xx, y0 + i * rows + yy, &full[s]); nbox++; }
    }
  }
}

int main() {
  size_t bytes = (size_t)N * N * 2;
  void *a, *b;
  CHECK(cudaMalloc(&a, bytes)); CHECK(cudaMalloc(&b, bytes)); CHECK(cudaMemset(a, 1, bytes));
  CHECK(cudaFuncSetAttribute(strips, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto time = [&](auto f) { f(); cudaDeviceSynchronize(); float best = 1e9;
    for (int rep = 0; rep < 7; rep++) { cudaEventRecord(e0); for (int i = 0; i < 20; i++) f(); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); ms /= 20; if (ms < best) best = ms; } return best; };
  float copy = time([&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice); });
  double copy_rate = 2.0 * bytes / (copy * 1e-3);
  printf("copy of %zu MB: %.4f ms, %.0f GB/s (read + write)\n", bytes >> 20, copy, copy_rate / 1e9);
  struct V { const char* name; CUtensorMapSwizzle sw; int bx, by; CUtensorMapL2promotion l2; };
  V vs[] = {
    {"swizzle 128B, box 64 x 64, L2 256B", CU_TENSOR_MAP_SWIZZLE_128B, 64, 64, CU_TENSOR_MAP_L2_PROMOTION_L2_256B},
    {"swizzle 128B, box 64 x 64, L2 128B", CU_TENSOR_MAP_SWIZZLE_128B, 64, 64, CU_TENSOR_MAP_L2_PROMOTION_L2_128B},
    {"swizzle 128B, box 64 x 64, L2 none", CU_TENSOR_MAP_SWIZZLE_128B, 64, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE},
    {"swizzle 128B, box 64 x 128, L2 256B", CU_TENSOR_MAP_SWIZZLE_128B, 64, 128, CU_TENSOR_MAP_L2_PROMOTION_L2_256B},
    {"swizzle 64B, box 32 x 64, L2 256B", CU_TENSOR_MAP_SWIZZLE_64B, 32, 64, CU_TENSOR_MAP_L2_PROMOTION_L2_256B},
    {"swizzle 32B, box 16 x 64, L2 256B", CU_TENSOR_MAP_SWIZZLE_32B, 16, 64, CU_TENSOR_MAP_L2_PROMOTION_L2_256B},
    {"no swizzle, box 128 x 64, L2 256B", CU_TENSOR_MAP_SWIZZLE_NONE, 128, 64, CU_TENSOR_MAP_L2_PROMOTION_L2_256B},
    {"no swizzle, box 128 x 128, L2 256B", CU_TENSOR_MAP_SWIZZLE_NONE, 128, 128, CU_TENSOR_MAP_L2_PROMOTION_L2_256B},
    {"no swizzle, box 128 x 64, L2 none", CU_TENSOR_MAP_SWIZZLE_NONE, 128, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE},
    {"no swizzle, box 64 x 64, L2 256B", CU_TENSOR_MAP_SWIZZLE_NONE, 64, 64, CU_TENSOR_MAP_L2_PROMOTION_L2_256B},
  };
  cuuint64_t dims[2] = {(cuuint64_t)N, (cuuint64_t)N}, strides[1] = {(cuuint64_t)N * 2};
  cuuint32_t es[2] = {1, 1};
  for (int round = 0; round < 2; round++)
    for (auto& v : vs) for (int rows : {64, 128}) {
      if (v.by > rows) continue;
      CUtensorMap map; cuuint32_t bd[2] = {(cuuint32_t)v.bx, (cuuint32_t)v.by};
      CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, a, dims, strides, bd, es, CU_TENSOR_MAP_INTERLEAVE_NONE, v.sw, v.l2, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
      if (r != CUDA_SUCCESS) { printf("%s: encode failed %d\n", v.name, (int)r); continue; }
      int S = (rows == 64 ? 4 : 2); size_t sm = (size_t)S * 128 * rows * 2;
      float t = time([&] { strips<<<128, 128, sm>>>(map, v.bx, v.by, rows, S); });
      CHECK(cudaGetLastError());
      double rate = bytes / (t * 1e-3);
      printf("round %d: %-38s stages of %3d rows (%d in flight): %.4f ms, %.0f GB/s, %.1f %% of the copy\n", round + 1, v.name, rows, S, t, rate / 1e9, 100 * rate / copy_rate);
    }
  return 0;
}
