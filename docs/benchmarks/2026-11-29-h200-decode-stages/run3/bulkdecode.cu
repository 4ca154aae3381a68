// Prototype: a decode product y = x · Wᵀ (x: m × k, W: n × k bf16, k contiguous: a linear layer's weights as
// PyTorch keeps them; m <= 16) whose weight rows arrive by 1-D bulk copies of 2 KB row pieces (the access
// tmaread.cu measured at the copy's rate, where 2-D tensor boxes stay near 94 %), multiplied by mma.sync from
// ldmatrix fragments. Block: 4 consumer warps + 1 producer warp; block b owns `rb` rows of W over all of k;
// a stage = 16 rows x KC columns of W and the m rows x KC columns of x. Kernel time against a device copy of W.
// nvcc -O3 -arch=sm_90a bulkdecode.cu
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

const int KC = 1024;              // columns of a stage (2 KB a row piece)
const int PITCH = KC * 2 + 16;    // bytes of a stage row in shared memory (+16: ldmatrix rows on distinct banks)
const int WR = 16;                // W rows a stage
const int XR = 16;                // x rows a stage holds (rows >= m stay zero)
const int STAGE = (WR + XR) * PITCH;
const int CONSUMERS = 4;

__device__ __forceinline__ uint32_t smem(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void bar_init(uint64_t* b, int n) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(b)), "r"(n)); }
__device__ __forceinline__ void expect(uint64_t* b, uint32_t tx) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(b)), "r"(tx) : "memory"); }
__device__ __forceinline__ void arrive(uint64_t* b) { asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(b)) : "memory"); }
__device__ __forceinline__ void wait(uint64_t* b, uint32_t parity) {
  asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W;\n}" :: "r"(smem(b)), "r"(parity) : "memory"); }
__device__ __forceinline__ void bulk(void* dst, const void* src, uint32_t bytes, uint64_t* b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
    :: "r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(b)) : "memory"); }
__device__ __forceinline__ void ldm4(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem(p))); }
__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1)); }

// y[i][j] (f32, m x n) = sum_l x[i][l] W[j][l]; k a multiple of KC, n of rb, rb of 16.
__global__ void __launch_bounds__(160, 1) bulk_decode(const __nv_bfloat16* __restrict__ W, const __nv_bfloat16* __restrict__ x,
                                                      float* __restrict__ y, int m, int n, int k, int rb, int S) {
  extern __shared__ __align__(128) uint8_t sh[];
  __shared__ uint64_t full[16], empty[16];
  __shared__ float red[CONSUMERS][WR][XR];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Zero every stage's x rows (rows >= m are never written again).
  for (int s = 0; s < S; s++)
    for (int i = threadIdx.x; i < XR * PITCH / 16; i += blockDim.x) ((uint4*)(sh + s * STAGE + WR * PITCH))[i] = make_uint4(0, 0, 0, 0);
  if (threadIdx.x == 0) { for (int s = 0; s < S; s++) { bar_init(&full[s], 1); bar_init(&empty[s], CONSUMERS); } }
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  int row0 = blockIdx.x * rb, groups = rb / WR, chunks = k / KC, steps = groups * chunks;
  if (warp == CONSUMERS) {
    if (lane == 0) {
      for (int t = 0; t < steps; t++) {
        int s = t % S, g = t / chunks, c = t % chunks;
        if (t >= S) wait(&empty[s], ((t / S) - 1) & 1);
        expect(&full[s], (WR + m) * KC * 2);
        uint8_t* st = sh + s * STAGE;
        for (int r = 0; r < WR; r++) bulk(st + r * PITCH, W + (size_t)(row0 + g * WR + r) * k + (size_t)c * KC, KC * 2, &full[s]);
        for (int r = 0; r < m; r++) bulk(st + (WR + r) * PITCH, x + (size_t)r * k + (size_t)c * KC, KC * 2, &full[s]);
      }
    }
    return;
  }
  // Consumer warp: columns [warp * KC/4, +KC/4) of each stage, 16 k-steps.
  float acc[2][4];
  for (int t = 0; t < steps; t++) {
    int s = t % S, c = t % chunks;
    if (c == 0) for (int h = 0; h < 2; h++) for (int q = 0; q < 4; q++) acc[h][q] = 0.f;
    wait(&full[s], (t / S) & 1);
    const uint8_t* st = sh + s * STAGE;
#pragma unroll 4
    for (int kk = 0; kk < KC / CONSUMERS; kk += 16) {
      int col = warp * (KC / CONSUMERS) + kk;
      uint32_t a[4], b[4];
      // A: rows lane % 16, columns col + 8 (lane / 16).
      ldm4(a, st + (lane % 16) * PITCH + (col + 8 * (lane / 16)) * 2);
      // B (x rows 0..15 as n): matrices (rows 0-7, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 0-7), (rows 8-15, k 8-15).
      int q = lane / 8;
      ldm4(b, st + (WR + (lane % 8) + 8 * (q / 2)) * PITCH + (col + 8 * (q % 2)) * 2);
      mma(acc[0], a, b[0], b[1]);
      if (m > 8) mma(acc[1], a, b[2], b[3]);
    }
    __syncwarp();
    if (lane == 0) arrive(&empty[s]);
    if (c == chunks - 1) {
      // Row group done: the four warps' partial sums added, stored.
      int g = t / chunks;
      for (int h = 0; h < 2; h++)
        for (int q = 0; q < 4; q++) {
          int r = lane / 4 + 8 * (q / 2), col = h * 8 + 2 * (lane % 4) + (q % 2);
          red[warp][r][col] = acc[h][q];
        }
      asm volatile("bar.sync 1, 128;");
      for (int e = threadIdx.x; e < WR * XR; e += 128) {
        int r = e / XR, i = e % XR;
        if (i < m) y[(size_t)i * n + row0 + g * WR + r] = red[0][r][i] + red[1][r][i] + red[2][r][i] + red[3][r][i];
      }
      asm volatile("bar.sync 1, 128;");
    }
  }
}

int main() {
  int shapes[][2] = {{8192, 8192}, {14336, 4096}, {4096, 14336}};
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto time = [&](auto f, int reps) { f(); CHECK(cudaDeviceSynchronize()); float best = 1e9;
    for (int rep = 0; rep < 5; rep++) { cudaEventRecord(e0); for (int i = 0; i < reps; i++) f(); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); ms /= reps; if (ms < best) best = ms; } return best; };
  int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (auto sh : shapes) {
    int n = sh[0], k = sh[1];
    size_t wb = (size_t)n * k * 2;
    std::vector<__nv_bfloat16> hw((size_t)n * k), hx((size_t)16 * k);
    srand(7);
    for (auto& v : hw) v = __float2bfloat16((rand() / (float)RAND_MAX) * 2 - 1);
    for (auto& v : hx) v = __float2bfloat16((rand() / (float)RAND_MAX) * 2 - 1);
    __nv_bfloat16 *dw, *dx, *dw2; float* dy;
    CHECK(cudaMalloc(&dw, wb)); CHECK(cudaMalloc(&dw2, wb)); CHECK(cudaMalloc(&dx, 16 * k * 2)); CHECK(cudaMalloc(&dy, 16 * (size_t)n * 4));
    CHECK(cudaMemcpy(dw, hw.data(), wb, cudaMemcpyHostToDevice)); CHECK(cudaMemcpy(dx, hx.data(), 16 * k * 2, cudaMemcpyHostToDevice));
    float copy = time([&] { cudaMemcpyAsync(dw2, dw, wb, cudaMemcpyDeviceToDevice); }, 20);
    double copy_rate = 2.0 * wb / (copy * 1e-3);
    printf("W %d x %d (%zu MB): copy %.4f ms, %.0f GB/s\n", n, k, wb >> 20, copy, copy_rate / 1e9);
    // Rows per block: about one block a SM, a multiple of 16 dividing n.
    int rb = 16; while (n / (rb * 2) >= sms && n % (rb * 2) == 0) rb *= 2;
    for (int cand = 16; cand <= n; cand += 16) if (n % cand == 0 && n / cand <= sms) { rb = cand; break; }
    for (int m : {1, 8, 16}) for (int S : {2, 3}) {
      size_t shm = (size_t)S * STAGE;
      CHECK(cudaFuncSetAttribute(bulk_decode, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
      CHECK(cudaMemset(dy, 0xff, 16 * (size_t)n * 4));
      bulk_decode<<<n / rb, 160, shm>>>(dw, dx, dy, m, n, k, rb, S);
      CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());
      std::vector<float> hy((size_t)m * n);
      CHECK(cudaMemcpy(hy.data(), dy, (size_t)m * n * 4, cudaMemcpyDeviceToHost));
      double num = 0, den = 0;
      for (int i = 0; i < m; i++) for (int j = 0; j < n; j += 37) {
        double ref = 0; for (int l = 0; l < k; l++) ref += (double)__bfloat162float(hx[(size_t)i * k + l]) * __bfloat162float(hw[(size_t)j * k + l]);
        double d = hy[(size_t)i * n + j] - ref; num += d * d; den += ref * ref; }
      float t1 = time([&] { bulk_decode<<<n / rb, 160, shm>>>(dw, dx, dy, m, n, k, rb, S); }, 1);
      float t10 = time([&] { bulk_decode<<<n / rb, 160, shm>>>(dw, dx, dy, m, n, k, rb, S); }, 10);
      double r1 = wb / (t1 * 1e-3), r10 = wb / (t10 * 1e-3);
      printf("  m %2d, %d blocks of %d rows, %d stages: one call %.4f ms (%.1f %% of the copy), ten in a row %.4f ms each (%.1f %%); rel. error %.1e\n",
             m, n / rb, rb, S, t1, 100 * r1 / copy_rate, t10, 100 * r10 / copy_rate, sqrt(num / den));
    }
    cudaFree(dw); cudaFree(dw2); cudaFree(dx); cudaFree(dy);
  }
  return 0;
}
