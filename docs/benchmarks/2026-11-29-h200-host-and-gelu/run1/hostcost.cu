// Host cost of the driver calls a decode GEMM call makes: cuTensorMapEncodeTiled, cuCtxSetCurrent,
// cuLaunchKernelEx (plain, with programmatic stream serialization), an event record. Median of 2000 each.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include <chrono>
#include <vector>
#include <algorithm>
#include <cstdio>
__global__ void empty_kernel(const void* p) {}
template <class F> double med_ns(F f, int n = 2000) {
  std::vector<double> t(n);
  for (int i = 0; i < n; i++) { auto a = std::chrono::steady_clock::now(); f(); auto b = std::chrono::steady_clock::now(); t[i] = std::chrono::duration<double, std::nano>(b - a).count(); }
  std::sort(t.begin(), t.end()); return t[n / 2];
}
int main() {
  cudaFree(0);
  CUcontext ctx; cuCtxGetCurrent(&ctx);
  void* buf; cudaMalloc(&buf, 128 << 20);
  CUtensorMap map;
  cuuint64_t dims[3] = {8192, 8192, 1}; cuuint64_t strides[2] = {8192 * 2, 8192ull * 8192 * 2};
  cuuint32_t box[3] = {64, 128, 1}; cuuint32_t es[3] = {1, 1, 1};
  auto enc = [&] { cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, buf, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE); };
  printf("cuTensorMapEncodeTiled: %.0f ns\n", med_ns(enc));
  printf("cuCtxSetCurrent: %.0f ns\n", med_ns([&] { cuCtxSetCurrent(ctx); }));
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const void* arg = buf;
  for (int pdl = 0; pdl < 2; pdl++) {
    cudaLaunchConfig_t cfg = {}; cfg.gridDim = dim3(132); cfg.blockDim = dim3(384); cfg.dynamicSmemBytes = 0; cfg.stream = s;
    cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization; at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at; cfg.numAttrs = pdl;
    double t = med_ns([&] { cudaLaunchKernelEx(&cfg, empty_kernel, arg); }, 1000);
    cudaStreamSynchronize(s);
    printf("cudaLaunchKernelEx %s: %.0f ns\n", pdl ? "with PDL" : "plain", t);
  }
  cudaEvent_t e; cudaEventCreate(&e);
  printf("cudaEventRecord: %.0f ns\n", med_ns([&] { cudaEventRecord(e, s); }, 1000));
  cudaStreamSynchronize(s);
  return 0;
}
