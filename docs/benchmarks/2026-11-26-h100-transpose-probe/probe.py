#!/usr/bin/env python3
"""Design probe for issue 15's odd-side transpose (not a ferrotile kernel).

Question: why does a scalar tiled transpose run at 93 % of copy on 8192^2
but 61 % on 8191 x 8193, with the same instructions and DRAM bytes? Small
CUDA C kernels, compiled by CuPy's NVRTC, each timed (CUDA events, median)
against a device-to-device copy of the same bytes in the same run:

* copies with the source or the destination shifted by one element
  (unaligned reads or unaligned writes alone);
* the plain tiled transpose (R output elements per output-row segment,
  C per input-row segment);
* `skew_out`: every block writes whole 128-byte lines of the output (the
  block's segment of output row o starts at the row's first aligned
  address + j W, so its input rows depend on o); reads stay unaligned;
* `skew_vec`: `skew_out` with 16-byte stores (4 scalar shared loads per
  store, positions spread so a warp's stride-4 reads are conflict-free);
* `skew_in`: the mirror image, whole 128-byte lines of the input read,
  writes unaligned.

Every transpose is checked against `x.T` on the GPU.
    python3 probe.py [NXxNY ...]
"""
import statistics
import sys
import cupy as cp

SRC = r'''
extern "C" __global__ void copy1(const float* __restrict__ s, float* __restrict__ d, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  long long st = (long long)gridDim.x * blockDim.x;
  for (; i < n; i += st) d[i] = s[i];
}
template <int R, int C, int BY>
__device__ void tile(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  __shared__ float t[R][C + 1];
  int c0 = blockIdx.x * C, r0 = blockIdx.y * R;
  float v[R * C / (32 * BY)];
#pragma unroll
  for (int k = 0; k < R * C / (32 * BY); k++) {
    int e = k * 32 * BY + threadIdx.y * 32 + threadIdx.x, r = e / C, c = e % C;
    int gr = r0 + r, gc = c0 + c;
    v[k] = (gr < ny && gc < nx) ? in[(long long)gr * nx + gc] : 0.f;
  }
#pragma unroll
  for (int k = 0; k < R * C / (32 * BY); k++) {
    int e = k * 32 * BY + threadIdx.y * 32 + threadIdx.x; t[e / C][e % C] = v[k];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < R * C / (32 * BY); k++) {
    int e = k * 32 * BY + threadIdx.y * 32 + threadIdx.x, c = e / R, r = e % R;
    int o = c0 + c, p = r0 + r;
    if (o < nx && p < ny) out[(long long)o * ny + p] = t[r][c];
  }
}
// Output-aligned: block (j, ob) writes output rows o in [ob*OB, +OB), for
// row o the elements p in [j W - s_o, j W - s_o + W), s_o = (o ny) mod 32.
template <int W, int OB, int BY>
__device__ void skew_out(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  constexpr int H = W + 32;  // input rows p in [j W - 32, j W + W)
  __shared__ float t[H][OB + 1];
  int j = blockIdx.x, o0 = blockIdx.y * OB, pb = j * W - 32;
  constexpr int N = H * OB / (32 * BY);
  float v[N];
#pragma unroll
  for (int k = 0; k < N; k++) {
    int e = k * 32 * BY + threadIdx.y * 32 + threadIdx.x, r = e / OB, c = e % OB;
    int p = pb + r, o = o0 + c;
    int so = (int)(((long long)o * ny) & 31);
    bool need = o < nx && p >= 0 && p < ny && r - 32 + so >= 0 && r - 32 + so < W;
    v[k] = need ? in[(long long)p * nx + o] : 0.f;
  }
#pragma unroll
  for (int k = 0; k < N; k++) {
    int e = k * 32 * BY + threadIdx.y * 32 + threadIdx.x; t[e / OB][e % OB] = v[k];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < W * OB / (32 * BY); k++) {
    int e = k * 32 * BY + threadIdx.y * 32 + threadIdx.x, c = e / W, q = e % W;
    int o = o0 + c;
    if (o >= nx) continue;
    int so = (int)(((long long)o * ny) & 31);
    int p = j * W - so + q;
    if (p >= 0 && p < ny) out[(long long)o * ny + p] = t[q - so + 32][c];
  }
}
// Input-aligned: block (j, rb) reads input rows r in [rb*RB, +RB), for row
// r the elements c in [j W - s_r, j W - s_r + W), s_r = (r nx) mod 32.
template <int W, int RB, int BY>
__device__ void skew_in(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  constexpr int H = W + 32;  // output rows (input columns) c in [j W - 32, j W + W)
  __shared__ float t[RB][H + 1];
  int j = blockIdx.x, r0 = blockIdx.y * RB, cb = j * W - 32;
  constexpr int N = W * RB / (32 * BY);
  float v[N];
#pragma unroll
  for (int k = 0; k < N; k++) {
    int e = k * 32 * BY + threadIdx.y * 32 + threadIdx.x, r = e / W, q = e % W;
    int gr = r0 + r;
    int sr = (int)(((long long)gr * nx) & 31);
    int c = j * W - sr + q;
    v[k] = (gr < ny && c >= 0 && c < nx) ? in[(long long)gr * nx + c] : 0.f;
  }
#pragma unroll
  for (int k = 0; k < N; k++) {
    int e = k * 32 * BY + threadIdx.y * 32 + threadIdx.x, r = e / W, q = e % W;
    int gr = r0 + r;
    int sr = gr < ny ? (int)(((long long)gr * nx) & 31) : 0;
    t[r][q - sr + 32] = v[k];
  }
  __syncthreads();
  constexpr int M = H * RB / (32 * BY);
#pragma unroll
  for (int k = 0; k < M; k++) {
    int e = k * 32 * BY + threadIdx.y * 32 + threadIdx.x, cc = e / RB, r = e % RB;
    int c = cb + cc, p = r0 + r;
    if (c < 0 || c >= nx || p >= ny) continue;
    int sr = (int)(((long long)p * nx) & 31);
    int q = c - (j * W - sr);
    if (q >= 0 && q < W) out[(long long)c * ny + p] = t[r][cc];
  }
}

// skew_out with 16-byte stores: the shared tile in output orientation
// (row c = output row o0 + c, position pos = p - pb), positions spread as
// pos + (pos >> 5) so a warp's stride-4 reads hit distinct banks.
template <int W, int OB, int BY>
__device__ void skew_vec(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  constexpr int H = W + 32, S = ((H + H / 32) | 1) + 2;
  __shared__ float t[OB][S];
  int j = blockIdx.x, o0 = blockIdx.y * OB, pb = j * W - 32;
  constexpr int N = H * OB / (32 * BY);
  float v[N];
#pragma unroll
  for (int k = 0; k < N; k++) {
    int e = k * 32 * BY + threadIdx.y * 32 + threadIdx.x, r = e / OB, c = e % OB;
    int p = pb + r, o = o0 + c;
    int so = (int)(((long long)o * ny) & 31);
    bool need = o < nx && p >= 0 && p < ny && r - 32 + so >= 0 && r - 32 + so < W;
    v[k] = need ? in[(long long)p * nx + o] : 0.f;
  }
#pragma unroll
  for (int k = 0; k < N; k++) {
    int e = k * 32 * BY + threadIdx.y * 32 + threadIdx.x, r = e / OB, c = e % OB;
    t[c][r + (r >> 5)] = v[k];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < W * OB / (128 * BY); k++) {
    int e = k * 32 * BY + threadIdx.y * 32 + threadIdx.x, c = e / (W / 4), q = 4 * (e % (W / 4));
    int o = o0 + c;
    if (o >= nx) continue;
    int so = (int)(((long long)o * ny) & 31);
    int p = j * W - so + q;
    float x[4];
#pragma unroll
    for (int i = 0; i < 4; i++) { int pos = q - so + 32 + i; x[i] = t[c][pos + (pos >> 5)]; }
    float* d = out + (long long)o * ny + p;
    if (p >= 0 && p + 3 < ny) {
      *reinterpret_cast<float4*>(d) = make_float4(x[0], x[1], x[2], x[3]);
    } else {
#pragma unroll
      for (int i = 0; i < 4; i++) if (p + i >= 0 && p + i < ny) d[i] = x[i];
    }
  }
}
extern "C" {
__global__ void __launch_bounds__(256) tile32x32(const float* a, float* b, int nx, int ny) { tile<32, 32, 8>(a, b, nx, ny); }
__global__ void __launch_bounds__(256) tile64x64(const float* a, float* b, int nx, int ny) { tile<64, 64, 8>(a, b, nx, ny); }
__global__ void __launch_bounds__(256) tile128x32(const float* a, float* b, int nx, int ny) { tile<128, 32, 8>(a, b, nx, ny); }
__global__ void __launch_bounds__(256) tile32x128(const float* a, float* b, int nx, int ny) { tile<32, 128, 8>(a, b, nx, ny); }
__global__ void __launch_bounds__(256) skew_out64(const float* a, float* b, int nx, int ny) { skew_out<64, 32, 8>(a, b, nx, ny); }
__global__ void __launch_bounds__(256) skew_out128(const float* a, float* b, int nx, int ny) { skew_out<128, 32, 8>(a, b, nx, ny); }
__global__ void __launch_bounds__(256) skew_out96o64(const float* a, float* b, int nx, int ny) { skew_out<96, 64, 8>(a, b, nx, ny); }
__global__ void __launch_bounds__(256) skew_in64(const float* a, float* b, int nx, int ny) { skew_in<64, 32, 8>(a, b, nx, ny); }
__global__ void __launch_bounds__(256) skew_in128(const float* a, float* b, int nx, int ny) { skew_in<128, 32, 8>(a, b, nx, ny); }
__global__ void __launch_bounds__(256) skew_out256(const float* a, float* b, int nx, int ny) { skew_out<256, 32, 8>(a, b, nx, ny); }
__global__ void __launch_bounds__(128) skew_out128b4(const float* a, float* b, int nx, int ny) { skew_out<128, 32, 4>(a, b, nx, ny); }
__global__ void __launch_bounds__(256) skew_vec128(const float* a, float* b, int nx, int ny) { skew_vec<128, 32, 8>(a, b, nx, ny); }
__global__ void __launch_bounds__(256) skew_vec256(const float* a, float* b, int nx, int ny) { skew_vec<256, 32, 8>(a, b, nx, ny); }
__global__ void __launch_bounds__(128) skew_vec128b4(const float* a, float* b, int nx, int ny) { skew_vec<128, 32, 4>(a, b, nx, ny); }
}
'''
mod = cp.RawModule(code=SRC, options=("-std=c++17",))


def med(fn, reps=30):
    for _ in range(3):
        fn()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); fn(); b.record(); b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b))
    return statistics.median(ts)


def cdiv(a, b):
    return (a + b - 1) // b


KERNELS = {  # name: grid(nx, ny) -> (gx, gy)
    "tile32x32": lambda nx, ny: (cdiv(nx, 32), cdiv(ny, 32)),
    "tile64x64": lambda nx, ny: (cdiv(nx, 64), cdiv(ny, 64)),
    "tile128x32": lambda nx, ny: (cdiv(nx, 32), cdiv(ny, 128)),
    "tile32x128": lambda nx, ny: (cdiv(nx, 128), cdiv(ny, 32)),
    "skew_out64": lambda nx, ny: (cdiv(ny + 32, 64), cdiv(nx, 32)),
    "skew_out128": lambda nx, ny: (cdiv(ny + 32, 128), cdiv(nx, 32)),
    "skew_out96o64": lambda nx, ny: (cdiv(ny + 32, 96), cdiv(nx, 64)),
    "skew_in64": lambda nx, ny: (cdiv(nx + 32, 64), cdiv(ny, 32)),
    "skew_in128": lambda nx, ny: (cdiv(nx + 32, 128), cdiv(ny, 32)),
    "skew_out256": lambda nx, ny: (cdiv(ny + 32, 256), cdiv(nx, 32)),
    "skew_out128b4": lambda nx, ny: (cdiv(ny + 32, 128), cdiv(nx, 32)),
    "skew_vec128": lambda nx, ny: (cdiv(ny + 32, 128), cdiv(nx, 32)),
    "skew_vec256": lambda nx, ny: (cdiv(ny + 32, 256), cdiv(nx, 32)),
    "skew_vec128b4": lambda nx, ny: (cdiv(ny + 32, 128), cdiv(nx, 32)),
}

print(f"# {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}\n")
print("| shape nx x ny | kernel | ms | % of copy | check |")
print("| --- | --- | ---: | ---: | --- |")
SHAPES = ((8192, 8192), (8193, 8191), (4099, 4093), (8194, 8190), (8192, 8191), (1031, 1021), (16411, 3001))
if len(sys.argv) > 1:  # shapes as nx x ny arguments: python3 probe.py 67x1048573 1048573x67
    SHAPES = tuple(tuple(int(v) for v in a.split("x")) for a in sys.argv[1:])
for nx, ny in SHAPES:
    n = nx * ny
    x = cp.random.rand(ny, nx, dtype=cp.float32)
    want = cp.ascontiguousarray(x.T)
    y = cp.empty((nx, ny), dtype=cp.float32)
    big = cp.empty(n + 64, dtype=cp.float32)
    big2 = cp.random.rand(n + 64, dtype=cp.float32)
    copy_ms = med(lambda: cp.cuda.runtime.memcpy(y.data.ptr, x.data.ptr, 4 * n, 3))
    print(f"| {nx}x{ny} | device-to-device copy | {copy_ms:.4f} | 100.0 | |")
    c1 = mod.get_function("copy1")
    for name, so, do in (("copy kernel", 0, 0), ("copy kernel, src +1 elem", 1, 0), ("copy kernel, dst +1 elem", 0, 1)):
        ms = med(lambda: c1((132 * 16,), (256,), (big2.data.ptr + 4 * so, big.data.ptr + 4 * do, cp.int64(n))))
        print(f"| {nx}x{ny} | {name} | {ms:.4f} | {100 * copy_ms / ms:.1f} | |")
    for name, grid in KERNELS.items():
        f = mod.get_function(name)
        y.fill(cp.nan)
        g = grid(nx, ny)
        blk = (32, 4) if name.endswith("b4") else (32, 8)
        f(g, blk, (x, y, cp.int32(nx), cp.int32(ny)))
        ok = bool(cp.array_equal(y, want))
        ms = med(lambda: f(g, blk, (x, y, cp.int32(nx), cp.int32(ny))))
        print(f"| {nx}x{ny} | {name} | {ms:.4f} | {100 * copy_ms / ms:.1f} | {'ok' if ok else 'FAIL'} |", flush=True)
    del x, want, y, big, big2
