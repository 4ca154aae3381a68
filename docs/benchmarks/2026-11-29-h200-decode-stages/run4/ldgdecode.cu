// Prototype: a decode product y = x · Wᵀ (x: m × k, W: n × k bf16, k contiguous; m <= 16) whose weights are read
// by plain 16-byte loads straight into mma.sync fragments (no shared memory on the way): the loads tmaread.cu's
// companion readpattern.cu measured at 97-99 % of a copy from enough blocks. Lane (g, t) = (lane / 4, lane % 4)
// loads 8 consecutive k of rows g and g + 8 of the warp's 16 rows and of x's rows g (and g + 8): the k-order
// inside a 32-wide chunk is permuted the same way for both operands, which a sum over k does not see.
// A block of WPB warps owns 16 rows of W; its warps split k and add their sums in shared memory.
// nvcc -O3 -arch=sm_90a ldgdecode.cu
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

__device__ __forceinline__ void mma(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1)); }
__device__ __forceinline__ uint4 ld_stream(const void* p) {
  uint4 v; asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p)); return v; }

template <int WPB, int U, bool M16>
__global__ void __launch_bounds__(WPB * 32) ldg_decode(const __nv_bfloat16* __restrict__ W, const __nv_bfloat16* __restrict__ x,
                                                       float* __restrict__ y, int m, int n, int k) {
  __shared__ float red[WPB][16][16];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  int row0 = blockIdx.x * 16, kw = k / WPB, k0 = warp * kw;
  const __nv_bfloat16* w0 = W + (size_t)(row0 + g) * k + k0 + 8 * t;
  const __nv_bfloat16* w8 = w0 + (size_t)8 * k;
  const __nv_bfloat16* x0 = x + (size_t)g * k + k0 + 8 * t;
  const __nv_bfloat16* x8 = x0 + (size_t)8 * k;
  bool hx0 = g < m, hx8 = g + 8 < m;
  float acc0[4] = {0, 0, 0, 0}, acc1[4] = {0, 0, 0, 0};
  for (int c = 0; c < kw; c += 32 * U) {
    uint4 a[U], b[U], p[U], q[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      a[u] = ld_stream(w0 + c + 32 * u);
      b[u] = ld_stream(w8 + c + 32 * u);
      p[u] = hx0 ? __ldg((const uint4*)(x0 + c + 32 * u)) : make_uint4(0, 0, 0, 0);
      if (M16) q[u] = hx8 ? __ldg((const uint4*)(x8 + c + 32 * u)) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
      mma(acc0, a[u].x, b[u].x, a[u].y, b[u].y, p[u].x, p[u].y);
      mma(acc0, a[u].z, b[u].z, a[u].w, b[u].w, p[u].z, p[u].w);
      if (M16) {
        mma(acc1, a[u].x, b[u].x, a[u].y, b[u].y, q[u].x, q[u].y);
        mma(acc1, a[u].z, b[u].z, a[u].w, b[u].w, q[u].z, q[u].w);
      }
    }
  }
  for (int h = 0; h < (M16 ? 2 : 1); h++)
    for (int j = 0; j < 4; j++) {
      int r = g + 8 * (j / 2), col = h * 8 + 2 * t + (j % 2);
      red[warp][r][col] = h ? acc1[j] : acc0[j];
    }
  __syncthreads();
  for (int e = threadIdx.x; e < 16 * 16; e += WPB * 32) {
    int r = e / 16, i = e % 16;
    if (i < m) { float s = 0; for (int w = 0; w < WPB; w++) s += red[w][r][i]; y[(size_t)i * n + row0 + r] = s; }
  }
}

int main() {
  int shapes[][2] = {{8192, 8192}, {14336, 4096}, {4096, 14336}};
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto time = [&](auto f, int reps) { f(); CHECK(cudaDeviceSynchronize()); float best = 1e9;
    for (int rep = 0; rep < 7; rep++) { cudaEventRecord(e0); for (int i = 0; i < reps; i++) f(); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); ms /= reps; if (ms < best) best = ms; } return best; };
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
    auto run = [&](const char* name, auto kern, int wpb, int m) {
      CHECK(cudaMemset(dy, 0xff, 16 * (size_t)n * 4));
      kern<<<n / 16, wpb * 32>>>(dw, dx, dy, m, n, k);
      CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());
      std::vector<float> hy((size_t)m * n);
      CHECK(cudaMemcpy(hy.data(), dy, (size_t)m * n * 4, cudaMemcpyDeviceToHost));
      double num = 0, den = 0;
      for (int i = 0; i < m; i++) for (int j = 0; j < n; j += 37) {
        double ref = 0; for (int l = 0; l < k; l++) ref += (double)__bfloat162float(hx[(size_t)i * k + l]) * __bfloat162float(hw[(size_t)j * k + l]);
        double d = hy[(size_t)i * n + j] - ref; num += d * d; den += ref * ref; }
      float t1 = time([&] { kern<<<n / 16, wpb * 32>>>(dw, dx, dy, m, n, k); }, 1);
      float t10 = time([&] { kern<<<n / 16, wpb * 32>>>(dw, dx, dy, m, n, k); }, 10);
      printf("  %-22s m %2d, %5d blocks: one call %.4f ms (%.1f %% of the copy), ten in a row %.4f ms each (%.1f %%); rel. error %.1e\n",
             name, m, n / 16, t1, 100 * (wb / (t1 * 1e-3)) / copy_rate, t10, 100 * (wb / (t10 * 1e-3)) / copy_rate, sqrt(num / den));
    };
    for (int m : {1, 8}) {
      run("4 warps, unroll 2", ldg_decode<4, 2, false>, 4, m);
      run("4 warps, unroll 4", ldg_decode<4, 4, false>, 4, m);
      run("8 warps, unroll 2", ldg_decode<8, 2, false>, 8, m);
      run("8 warps, unroll 4", ldg_decode<8, 4, false>, 8, m);
    }
    run("4 warps, unroll 2", ldg_decode<4, 2, true>, 4, 16);
    run("4 warps, unroll 4", ldg_decode<4, 4, true>, 4, 16);
    run("8 warps, unroll 2", ldg_decode<8, 2, true>, 8, 16);
    run("8 warps, unroll 4", ldg_decode<8, 4, true>, 8, 16);
    cudaFree(dw); cudaFree(dw2); cudaFree(dx); cudaFree(dy);
  }
  return 0;
}
