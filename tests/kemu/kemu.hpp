// kemu: just enough of CUDA to run cutune's memory-bound kernels on the CPU, so that CI (which
// has no GPU) runs their logic: indexing, bounds, __syncthreads placement, warp shuffles, the
// last-block-done finish and the scratch memory each launch must leave clean.
//
// A launch runs its blocks one after another; a block runs one std::thread per CUDA thread.
// __syncthreads is a barrier over the block, __syncwarp and the shuffles barriers over a warp
// (warps are consecutive linear thread ids). __shared__ becomes `static`: one instance shared
// by the threads of the block, which is right because only one block runs at a time. Atomics
// are std::atomic_ref. What it does not model: concurrent blocks, the GPU memory model, timing.
#ifndef CUTUNE_KEMU_HPP
#define CUTUNE_KEMU_HPP

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

struct float4 {
    float x, y, z, w;
};
struct float2 {
    float x, y;
};
struct uint4 {
    unsigned x, y, z, w;
};
inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }

namespace kemu {
inline std::unique_ptr<std::barrier<>> block_barrier;
inline std::vector<std::unique_ptr<std::barrier<>>> warp_barrier;
inline unsigned long long exchange[32][32]; // [warp][lane], for shuffles
alignas(16) inline float dynamic_shared[1 << 16];
inline int linear_id() { return (int)(threadIdx.x + threadIdx.y * blockDim.x); }
} // namespace kemu

inline void __syncthreads() { kemu::block_barrier->arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { kemu::warp_barrier[kemu::linear_id() / 32]->arrive_and_wait(); }

template <class T> T __shfl_down_sync(unsigned, T v, int off)
{
    static_assert(sizeof(T) <= sizeof(unsigned long long), "shuffle of a wide type");
    const int id = kemu::linear_id(), w = id / 32, lane = id % 32;
    std::memcpy(&kemu::exchange[w][lane], &v, sizeof v);
    kemu::warp_barrier[w]->arrive_and_wait(); // everyone has published
    T r = v;
    if (lane + off < 32)
        std::memcpy(&r, &kemu::exchange[w][lane + off], sizeof r);
    kemu::warp_barrier[w]->arrive_and_wait(); // everyone has read before the next shuffle
    return r;
}

template <class T> T atomicAdd(T *p, T v) { return std::atomic_ref<T>(*p).fetch_add(v); }
template <class T> T atomicExch(T *p, T v) { return std::atomic_ref<T>(*p).exchange(v); }
using std::max;
using std::min;
inline unsigned long long atomicMin(unsigned long long *p, unsigned long long v)
{
    std::atomic_ref<unsigned long long> a(*p);
    unsigned long long old = a.load();
    while (v < old && !a.compare_exchange_weak(old, v)) {
    }
    return old;
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
template <class T> T __ldcg(const T *p) { return *(const volatile T *)p; }
inline float __int_as_float(int i)
{
    float f;
    std::memcpy(&f, &i, sizeof f);
    return f;
}
inline float __int_as_float(unsigned i) { return __int_as_float((int)i); }
inline int __float_as_int(float f)
{
    int i;
    std::memcpy(&i, &f, sizeof i);
    return i;
}

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__ static
#define DYNAMIC_SHARED(type, name) type *name = reinterpret_cast<type *>(kemu::dynamic_shared)

namespace kemu {
// Run kernel(args...) over grid x block (a 2-D block at most), one block at a time, in
// CUDA's launch order (x fastest, z slowest).
template <class K, class... A> void launch(dim3 grid, dim3 block, K kernel, A... args)
{
    gridDim = grid;
    blockDim = block;
    const int threads = (int)(block.x * block.y);
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                block_barrier = std::make_unique<std::barrier<>>(threads);
                warp_barrier.clear();
                for (int w = 0; w < (threads + 31) / 32; w++)
                    warp_barrier.push_back(std::make_unique<std::barrier<>>(std::min(32, threads - 32 * w)));
                std::vector<std::thread> pool;
                for (int t = 0; t < threads; t++)
                    pool.emplace_back([=] {
                        blockIdx = {bx, by, bz};
                        threadIdx = {(unsigned)t % block.x, (unsigned)t / block.x, 0};
                        kernel(args...);
                    });
                for (auto &t : pool)
                    t.join();
            }
}
} // namespace kemu

#endif
