// How fast blocks stream a 8192 x 8192 bf16 matrix (128 MiB) from HBM through the TMA unit, as the decode kernel
// reads B (row-major k x n, each block a 128-column strip of a k-range): 2-D tensor boxes of 64 columns (128 B)
// x 64 rows, 128-byte swizzle, two boxes (16 KB) a stage, `S` stages in flight on mbarriers; one thread issues
// and waits (the data is not used). Blocks: 128 (64 strips x 2 k-parts, one a SM) or 256 (x 4, two a SM where
// the shared memory allows), and 1-D bulk copies of 16 KB for comparison. Against a device copy of the bytes.
// nvcc -O3 -arch=sm_90a tmaread.cu -lcuda
#include <cstdio>
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
const int N = 8192;  // columns and rows (bf16)

__device__ __forceinline__ uint32_t smem(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void bar_init(uint64_t* b) { asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(b))); }
__device__ __forceinline__ void expect(uint64_t* b, uint32_t tx) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(b)), "r"(tx) : "memory"); }
__device__ __forceinline__ void wait(uint64_t* b, uint32_t parity) {
  asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W;\n}" :: "r"(smem(b)), "r"(parity) : "memory"); }
__device__ __forceinline__ void box(void* dst, const CUtensorMap* map, int x, int y, uint64_t* b) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
    :: "r"(smem(dst)), "l"(map), "r"(x), "r"(y), "r"(smem(b)) : "memory"); }
__device__ __forceinline__ void bulk(void* dst, const void* src, uint32_t bytes, uint64_t* b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
    :: "r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(b)) : "memory"); }

// Block b: strip b % 64 (128 columns), k-range part b / 64 of `parts`; `S` stages of 16 KB.
__global__ void tma_strips(const __grid_constant__ CUtensorMap map, int parts, int S) {
  extern __shared__ __align__(1024) uint8_t sh[];
  __shared__ uint64_t full[32];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < S; s++) bar_init(&full[s]);
  asm volatile("fence.proxy.async.shared::cta;");
  int strip = blockIdx.x % 64, part = blockIdx.x / 64, rows = N / parts, y0 = part * rows, steps = rows / 64;
  for (int i = 0; i < steps + S; i++) {
    int s = i % S;
    if (i >= S) wait(&full[s], ((i / S) - 1) & 1);
    if (i < steps) {
      expect(&full[s], 16384);
      box(sh + s * 16384, &map, strip * 128, y0 + i * 64, &full[s]);
      box(sh + s * 16384 + 8192, &map, strip * 128 + 64, y0 + i * 64, &full[s]);
    }
  }
}

// Block b reads bytes [b * share, (b + 1) * share) in 16 KB bulk copies, `S` in flight.
__global__ void bulk_read(const uint8_t* m, size_t share, int S) {
  extern __shared__ __align__(1024) uint8_t sh[];
  __shared__ uint64_t full[32];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < S; s++) bar_init(&full[s]);
  asm volatile("fence.proxy.async.shared::cta;");
  const uint8_t* src = m + blockIdx.x * share;
  int steps = share / 16384;
  for (int i = 0; i < steps + S; i++) {
    int s = i % S;
    if (i >= S) wait(&full[s], ((i / S) - 1) & 1);
    if (i < steps) { expect(&full[s], 16384); bulk(sh + s * 16384, src + (size_t)i * 16384, 16384, &full[s]); }
  }
}


// Block b: strip b % strips of `w` bytes, k-range part b / strips of `parts`; each stage `rows` rows of the strip,
// one 1-D bulk copy of `w` bytes per row (the strip's piece of that row), `S` stages in flight.
__global__ void bulk_strips(const uint8_t* m, int w, int strips, int parts, int rows, int S) {
  extern __shared__ __align__(1024) uint8_t sh[];
  __shared__ uint64_t full[32];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < S; s++) bar_init(&full[s]);
  asm volatile("fence.proxy.async.shared::cta;");
  int strip = blockIdx.x % strips, part = blockIdx.x / strips, krows = N / parts, y0 = part * krows, steps = krows / rows;
  size_t pitch = (size_t)N * 2;
  for (int i = 0; i < steps + S; i++) {
    int s = i % S;
    if (i >= S) wait(&full[s], ((i / S) - 1) & 1);
    if (i < steps) {
      expect(&full[s], rows * w);
      for (int j = 0; j < rows; j++)
        bulk(sh + (size_t)s * rows * w + j * w, m + (size_t)(y0 + i * rows + j) * pitch + (size_t)strip * w, w, &full[s]);
    }
  }
}

// Block b: strip b % strips of `bw` boxes of 64 columns, k-range part b / strips; stages of `bw` boxes of
// 64 columns x `rows` rows.
__global__ void box_strips(const __grid_constant__ CUtensorMap map, int bw, int strips, int parts, int rows, int S) {
  extern __shared__ __align__(1024) uint8_t sh[];
  __shared__ uint64_t full[32];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < S; s++) bar_init(&full[s]);
  asm volatile("fence.proxy.async.shared::cta;");
  int strip = blockIdx.x % strips, part = blockIdx.x / strips, krows = N / parts, y0 = part * krows, steps = krows / rows;
  int stage = bw * rows * 128;
  for (int i = 0; i < steps + S; i++) {
    int s = i % S;
    if (i >= S) wait(&full[s], ((i / S) - 1) & 1);
    if (i < steps) {
      expect(&full[s], stage);
      for (int j = 0; j < bw; j++) box(sh + s * stage + j * rows * 128, &map, (strip * bw + j) * 64, y0 + i * rows, &full[s]);
    }
  }
}

int main() {
  size_t bytes = (size_t)N * N * 2;
  void *a, *b;
  CHECK(cudaMalloc(&a, bytes)); CHECK(cudaMalloc(&b, bytes)); CHECK(cudaMemset(a, 1, bytes));
  CUtensorMap map;
  cuuint64_t dims[2] = {(cuuint64_t)N, (cuuint64_t)N}, strides[1] = {(cuuint64_t)N * 2};
  cuuint32_t boxd[2] = {64, 64}, es[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, a, dims, strides, boxd, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) { printf("encode failed %d\n", (int)r); return 1; }
  CHECK(cudaFuncSetAttribute(tma_strips, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
  CHECK(cudaFuncSetAttribute(bulk_read, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto time = [&](auto f) { f(); cudaDeviceSynchronize(); float best = 1e9;
    for (int rep = 0; rep < 5; rep++) { cudaEventRecord(e0); for (int i = 0; i < 20; i++) f(); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); ms /= 20; if (ms < best) best = ms; } return best; };
  float copy = time([&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice); });
  double copy_rate = 2.0 * bytes / (copy * 1e-3);
  printf("copy of %zu MB: %.4f ms, %.0f GB/s (read + write)\n", bytes >> 20, copy, copy_rate / 1e9);
  for (int parts : {2, 4, 8}) for (int S : {2, 4, 6, 8, 12}) {
    int blocks = 64 * parts; size_t sm = (size_t)S * 16384;
    int per_sm = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tma_strips, 128, sm);
    float t = time([&] { tma_strips<<<blocks, 128, sm>>>(map, parts, S); });
    CHECK(cudaGetLastError());
    double rate = bytes / (t * 1e-3);
    printf("tensor boxes: blocks %4d (%d a SM fit), %2d stages of 16 KB: %.4f ms, %.0f GB/s, %.1f %% of the copy\n", blocks, per_sm, S, t, rate / 1e9, 100 * rate / copy_rate);
  }
  for (int blocks : {128, 256, 512}) for (int S : {2, 4, 8, 12}) {
    size_t sm = (size_t)S * 16384;
    int per_sm = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bulk_read, 128, sm);
    float t = time([&] { bulk_read<<<blocks, 128, sm>>>((const uint8_t*)a, bytes / blocks, S); });
    CHECK(cudaGetLastError());
    double rate = bytes / (t * 1e-3);
    printf("1-D bulk: blocks %4d (%d a SM fit), %2d stages of 16 KB: %.4f ms, %.0f GB/s, %.1f %% of the copy\n", blocks, per_sm, S, t, rate / 1e9, 100 * rate / copy_rate);
  }

  CHECK(cudaFuncSetAttribute(bulk_strips, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
  CHECK(cudaFuncSetAttribute(box_strips, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
  // 1-D bulk copies of one row's piece: strips of w bytes, 128 or 256 blocks, 8 stages of 16 KB.
  for (int w : {128, 256, 512, 1024, 2048}) for (int nb : {128, 256}) {
    int strips = 16384 / w; int parts = nb / strips; int blocks = strips * parts;
    int rows = 16384 / w; int S = 8; size_t sm = (size_t)S * 16384;
    float t = time([&] { bulk_strips<<<blocks, 128, sm>>>((const uint8_t*)a, w, strips, parts, rows, S); });
    CHECK(cudaGetLastError());
    double rate = bytes / (t * 1e-3);
    printf("1-D bulk a row piece: strip %5d B, blocks %4d, %3d copies a stage, 8 stages of 16 KB: %.4f ms, %.0f GB/s, %.1f %% of the copy\n", w, blocks, rows, t, rate / 1e9, 100 * rate / copy_rate);
  }
  // 2-D boxes of 64 columns x `rows` rows, strips of bw boxes.
  int box_rows[] = {8, 16, 32, 64, 128, 256};
  for (int bw : {1, 2, 4, 8}) for (int rows : box_rows) {
    CUtensorMap m2; cuuint32_t bd[2] = {64, (cuuint32_t)rows};
    if (cuTensorMapEncodeTiled(&m2, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, a, dims, strides, bd, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) { printf("encode %d failed\n", rows); continue; }
    int strips = 128 / bw, parts = 128 / strips; int blocks = strips * parts;
    int stage = bw * rows * 128; int S = (96 * 1024) / stage; if (S < 2) S = 2; if (S > 12) S = 12;
    if ((size_t)S * stage > 200 * 1024) continue;
    if ((N / parts) % rows) continue;
    float t = time([&] { box_strips<<<blocks, 128, (size_t)S * stage>>>(m2, bw, strips, parts, rows, S); });
    CHECK(cudaGetLastError());
    double rate = bytes / (t * 1e-3);
    printf("2-D boxes: strip %2d boxes (%5d B), box rows %3d, blocks %d, %2d stages of %6d B: %.4f ms, %.0f GB/s, %.1f %% of the copy\n", bw, bw * 128, rows, blocks, S, stage, t, rate / 1e9, 100 * rate / copy_rate);
  }
  return 0;
}
