// kemu: just enough of CUDA to run kernels on the CPU. CI (which has no GPU) runs the
// memory-bound kernels and matmul_async with it (tests/kemu/), and `cutune check --run`
// runs a variant's configs and its op's check with it (emu_build.c compiles a kernel with
// this header in front of it, with the host's C++ compiler): indexing, bounds, __syncthreads
// placement, warp shuffles and votes, atomics, the last-block-done finish and the scratch
// memory each launch must leave clean.
//
// A launch runs its blocks one after another, and the threads of a block take turns on one OS
// thread (a context each, on a stack kept from launch to launch): a thread runs until it
// waits at a barrier, then the next runs. __syncthreads is a barrier over the block,
// __syncwarp, the shuffles and the votes barriers over a warp (warps are consecutive linear
// thread ids). A thread runs alone from one barrier to the next, in the same order on every
// run: a missing barrier lets a thread read what a later thread has not written yet, a wrong
// result on every run rather than under an unlucky schedule. __shared__ becomes `static`: one
// instance shared by the threads of the block, which is right because only one block runs
// at a time. Atomics are std::atomic_ref. What it does not model: concurrent blocks, the GPU
// memory model, timing, inline PTX (asm) beyond what kemu_mma.cpp emulates, textures, half
// precision, cooperative groups, and the precision of the device's math functions (the host's
// libm computes them). A thread block cluster (launch_cluster: CLUSTER consecutive blocks
// along z) is the exception to "one block at a time": its blocks' threads take turns
// together, each block with its own barrier and its own dynamic shared memory (a slice of
// dynamic_shared), and cluster_sync() is a barrier over all of them. A block of a cluster
// that ends loses its shared memory (filled with 0xff bytes, NaN as floats) while the others
// may still run, as on the GPU, where reading it then is undefined. Dynamic shared memory
// starts every block as 0xff bytes.
#ifndef CUTUNE_KEMU_HPP
#define CUTUNE_KEMU_HPP

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <tuple>
#include <ucontext.h>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define KEMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KEMU_ASAN 1
#endif
#endif
#if KEMU_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
// The running CUDA thread's; the scheduler sets them before it resumes a thread.
inline dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
constexpr int warpSize = 32;

// The vector types, with CUDA's alignment (a 16-byte load of a float4 needs it).
#define KEMU_VEC2(T, N, A) \
    struct alignas(A) N##2 { \
        T x, y; \
    }; \
    inline N##2 make_##N##2(T a, T b) { return {a, b}; }
#define KEMU_VEC3(T, N) \
    struct N##3 { \
        T x, y, z; \
    }; \
    inline N##3 make_##N##3(T a, T b, T c) { return {a, b, c}; }
#define KEMU_VEC4(T, N, A) \
    struct alignas(A) N##4 { \
        T x, y, z, w; \
    }; \
    inline N##4 make_##N##4(T a, T b, T c, T d) { return {a, b, c, d}; }
KEMU_VEC2(float, float, 8)
KEMU_VEC3(float, float)
KEMU_VEC4(float, float, 16)
KEMU_VEC2(int, int, 8)
KEMU_VEC3(int, int)
KEMU_VEC4(int, int, 16)
KEMU_VEC2(unsigned, uint, 8)
KEMU_VEC3(unsigned, uint)
KEMU_VEC4(unsigned, uint, 16)
KEMU_VEC2(double, double, 16)
KEMU_VEC2(long long, longlong, 16)
#undef KEMU_VEC2
#undef KEMU_VEC3
#undef KEMU_VEC4

namespace kemu {
// A saved execution context and the switch between two of them. On x86-64 the switch saves
// the callee-saved registers on the stack it leaves and swaps stack pointers, in user space;
// elsewhere it is swapcontext, which also makes a system call (the signal mask) at every
// switch: slower, the same results.
#if defined(__x86_64__)
struct Context {
    void *sp;
};
extern "C" void kemu_swap_stack(void **save, void *load);
asm(R"(
    .text
    .p2align 4
kemu_swap_stack:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
)");
inline void switch_context(Context &from, const Context &to) { kemu_swap_stack(&from.sp, to.sp); }
// `to` starts fn(), which must never return, at the top of the stack [base, base + size).
inline void make_context(Context &to, char *base, size_t size, void (*fn)())
{
    void **sp = reinterpret_cast<void **>(reinterpret_cast<uintptr_t>(base + size) & ~uintptr_t{15});
    *--sp = nullptr;                    // fn's return address, never used
    *--sp = reinterpret_cast<void *>(fn); // where kemu_swap_stack's ret goes
    for (int i = 0; i < 6; i++)
        *--sp = nullptr; // the six registers it pops
    to.sp = sp;
}
#else
struct Context {
    ucontext_t uc;
    bool made;
};
inline void switch_context(Context &from, const Context &to) { swapcontext(&from.uc, &to.uc); }
inline void make_context(Context &to, char *base, size_t size, void (*fn)())
{
    if (!to.made)
        getcontext(&to.uc); // once: it too makes a system call
    to.made = true;
    to.uc.uc_stack.ss_sp = base;
    to.uc.uc_stack.ss_size = size;
    to.uc.uc_link = nullptr;
    makecontext(&to.uc, fn, 0);
}
#endif

// A CUDA thread: a context on a stack of its own, kept from block to block.
// A barrier over `expected` threads; a generation counts its releases.
struct Barrier {
    int expected, arrived;
    unsigned generation;
};
struct Thread {
    Context ctx;
    char *stack;
    bool done;
    void *fake_stack;       // AddressSanitizer's, while the thread is switched out
    const Barrier *waiting; // the barrier it waits at (null: none), until its generation moves
    unsigned waiting_generation;
};
enum { MAX_THREADS = 2048, MAX_CLUSTER = 8, STACK_BYTES = 1 << 18 };
inline Thread threads[MAX_THREADS]; // a launch's block, or its cluster's blocks one after another
inline Barrier block_barrier[MAX_CLUSTER], cluster_barrier, warp_barrier[MAX_THREADS / 32];
inline int block_threads, block_warps, cluster_size = 1; // of the running launch
inline Context scheduler;
inline const void *scheduler_stack; // its bounds, for AddressSanitizer
inline size_t scheduler_stack_size;
inline int current;
// The schedule: false, each thread runs on to its next barrier in turn, so that the warps of
// a block move in step; true (warps run ahead), the lowest-numbered thread that can go on runs,
// so that a warp runs on alone until it waits at a barrier that another warp must reach. A
// warp that overwrites shared memory another warp has yet to read (a __syncthreads missing or
// too early) shows only in the second.
inline bool warps_run_ahead;
inline unsigned long long events; // barrier releases and threads finished, to see progress
inline void (*body)(); // the launch's kernel with its arguments
inline unsigned long long exchange[MAX_THREADS / 32][32]; // [warp][lane], shuffles and votes
alignas(16) inline float dynamic_shared[1 << 16]; // split evenly between a cluster's blocks
inline int linear_id()
{
    return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
// the running thread's block within its cluster (0 without one), and its warp among the
// cluster's warps (those of a block are consecutive linear thread ids)
inline int block_rank() { return current / block_threads; }
inline int warp_id() { return block_rank() * block_warps + linear_id() / 32; }
// block `rank`'s dynamic shared memory
inline char *shared_of(int rank)
{
    return reinterpret_cast<char *>(dynamic_shared) + rank * (sizeof dynamic_shared / cluster_size);
}
// What the threads of a block publish for __syncthreads_count and its kin, per block of
// the cluster.
inline int block_count[MAX_CLUSTER];

// Back to the scheduler; `finished`: this thread will not be resumed.
inline void switch_out([[maybe_unused]] bool finished)
{
#if KEMU_ASAN
    __sanitizer_start_switch_fiber(finished ? nullptr : &threads[current].fake_stack, scheduler_stack,
                                   scheduler_stack_size);
#endif
    switch_context(threads[current].ctx, scheduler);
#if KEMU_ASAN
    __sanitizer_finish_switch_fiber(threads[current].fake_stack, &scheduler_stack, &scheduler_stack_size);
#endif
}

[[noreturn]] inline void thread_main()
{
#if KEMU_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &scheduler_stack, &scheduler_stack_size);
#endif
    body();
    threads[current].done = true;
    events++;
    switch_out(true);
    std::abort(); // a finished thread is never resumed
}

// Wait until every thread the barrier counts has arrived. The last one to arrive goes on at
// once; the others see the generation change when the scheduler next resumes them.
inline void arrive_and_wait(Barrier &b)
{
    const unsigned generation = b.generation;
    if (++b.arrived == b.expected) {
        b.arrived = 0;
        b.generation++;
        events++;
        return;
    }
    threads[current].waiting = &b;
    threads[current].waiting_generation = generation;
    while (b.generation == generation)
        switch_out(false);
    threads[current].waiting = nullptr;
}
} // namespace kemu

inline void __syncthreads() { kemu::arrive_and_wait(kemu::block_barrier[kemu::block_rank()]); }
inline void __syncwarp(unsigned = 0xffffffffu) { kemu::arrive_and_wait(kemu::warp_barrier[kemu::warp_id()]); }

namespace kemu {
// Every lane of the warp publishes v, then reads the value of lane src(lane) (its own when
// src is out of the lane's segment of `width` lanes); two barriers, so that a shuffle does
// not overwrite what the one before is still reading.
template <class T, class F> T shuffle(T v, int width, F src)
{
    static_assert(sizeof(T) <= sizeof(unsigned long long), "shuffle of a wide type");
    const int w = warp_id(), lane = linear_id() % 32;
    std::memcpy(&exchange[w][lane], &v, sizeof v);
    arrive_and_wait(warp_barrier[w]); // everyone has published
    const int base = lane / width * width, from = src(lane - base);
    T r = v;
    if (from >= 0 && from < width && base + from < warp_barrier[w].expected)
        std::memcpy(&r, &exchange[w][base + from], sizeof r);
    arrive_and_wait(warp_barrier[w]); // everyone has read before the next shuffle
    return r;
}
// The warp's predicates as a mask of lanes.
inline unsigned vote(bool p)
{
    const int w = warp_id(), lane = linear_id() % 32;
    exchange[w][lane] = p;
    arrive_and_wait(warp_barrier[w]);
    unsigned m = 0;
    for (int i = 0; i < warp_barrier[w].expected; i++)
        m |= (exchange[w][i] ? 1u : 0u) << i;
    arrive_and_wait(warp_barrier[w]);
    return m;
}
// The number of the block's threads whose predicate is true.
inline int block_vote(bool p)
{
    const int r = block_rank();
    block_count[r] += p;
    arrive_and_wait(block_barrier[r]);
    const int n = block_count[r];
    arrive_and_wait(block_barrier[r]);
    if (linear_id() == 0)
        block_count[r] = 0; // the others have read it; the next vote counts afresh
    arrive_and_wait(block_barrier[r]);
    return n;
}
} // namespace kemu

template <class T> T __shfl_sync(unsigned, T v, int src, int width = 32)
{
    return kemu::shuffle(v, width, [src, width](int) { return ((src % width) + width) % width; });
}
template <class T> T __shfl_down_sync(unsigned, T v, unsigned off, int width = 32)
{
    return kemu::shuffle(v, width, [off](int l) { return l + (int)off; });
}
template <class T> T __shfl_up_sync(unsigned, T v, unsigned off, int width = 32)
{
    return kemu::shuffle(v, width, [off](int l) { return l - (int)off; });
}
template <class T> T __shfl_xor_sync(unsigned, T v, int mask, int width = 32)
{
    return kemu::shuffle(v, width, [mask](int l) { return l ^ mask; });
}
inline unsigned __ballot_sync(unsigned, int p) { return kemu::vote(p != 0); }
inline int __any_sync(unsigned, int p) { return kemu::vote(p != 0) != 0; }
inline unsigned __activemask()
{
    const int n = kemu::warp_barrier[kemu::linear_id() / 32].expected;
    return n == 32 ? 0xffffffffu : (1u << n) - 1;
}
inline int __all_sync(unsigned, int p) { return kemu::vote(p != 0) == __activemask(); }
inline int __syncthreads_count(int p) { return kemu::block_vote(p != 0); }
inline int __syncthreads_or(int p) { return kemu::block_vote(p != 0) != 0; }
inline int __syncthreads_and(int p)
{
    return kemu::block_vote(p != 0) == kemu::block_barrier[kemu::block_rank()].expected;
}

template <class T> T atomicAdd(T *p, T v) { return std::atomic_ref<T>(*p).fetch_add(v); }
template <class T> T atomicSub(T *p, T v) { return std::atomic_ref<T>(*p).fetch_sub(v); }
template <class T> T atomicExch(T *p, T v) { return std::atomic_ref<T>(*p).exchange(v); }
template <class T> T atomicAnd(T *p, T v) { return std::atomic_ref<T>(*p).fetch_and(v); }
template <class T> T atomicOr(T *p, T v) { return std::atomic_ref<T>(*p).fetch_or(v); }
template <class T> T atomicXor(T *p, T v) { return std::atomic_ref<T>(*p).fetch_xor(v); }
template <class T> T atomicCAS(T *p, T compare, T v)
{
    std::atomic_ref<T>(*p).compare_exchange_strong(compare, v);
    return compare; // the old value either way
}
template <class T> T atomicMin(T *p, T v)
{
    std::atomic_ref<T> a(*p);
    T old = a.load();
    while (v < old && !a.compare_exchange_weak(old, v)) {
    }
    return old;
}
template <class T> T atomicMax(T *p, T v)
{
    std::atomic_ref<T> a(*p);
    T old = a.load();
    while (old < v && !a.compare_exchange_weak(old, v)) {
    }
    return old;
}
inline unsigned atomicInc(unsigned *p, unsigned limit)
{
    std::atomic_ref<unsigned> a(*p);
    unsigned old = a.load();
    while (!a.compare_exchange_weak(old, old >= limit ? 0 : old + 1)) {
    }
    return old;
}
using std::max;
using std::min;
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
template <class T> T __ldcg(const T *p) { return *(const volatile T *)p; }
template <class T> T __ldg(const T *p) { return *p; }
inline long long clock64() { return 0; }
// The fast math intrinsics: the host's functions (the device's are less precise, which
// only an op's tolerance can tell).
inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline int __float2int_rn(float x) { return (int)std::nearbyint(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline float __int2float_rn(int x) { return (float)x; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; i++, x >>= 1)
        r = r << 1 | (x & 1);
    return r;
}
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
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
inline float __uint_as_float(unsigned u)
{
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}
inline unsigned __float_as_uint(float f)
{
    unsigned u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

#define __global__
#define __device__
#define __host__
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __grid_constant__ /* a TMA tensor map parameter: the CPU run passes zero bytes */
#define __restrict__ __restrict
#define __shared__ static
#define DYNAMIC_SHARED(type, name) type *name = reinterpret_cast<type *>(kemu::shared_of(kemu::block_rank()))

namespace kemu {
// Run kernel(args...) over grid x block, one block at a time, in CUDA's launch order (x
// fastest, z slowest), or one cluster of `cluster` blocks along z at a time. The threads of
// a block (a cluster) take turns on this OS thread: each runs until it waits at a barrier or
// ends, then the next one that can go on runs, in thread order. A pass in which nothing
// arrived or ended is a deadlock (a barrier that not every thread reaches), reported rather
// than hung.
template <class K, class... A> void launch_cluster(dim3 grid, dim3 block, int cluster, K kernel, A... args)
{
    gridDim = grid;
    blockDim = block;
    const int per_block = (int)(block.x * block.y * block.z), nthreads = per_block * cluster;
    if (per_block < 1 || nthreads > MAX_THREADS || cluster < 1 || cluster > MAX_CLUSTER ||
        grid.z % cluster != 0) {
        fprintf(stderr, "kemu: a block of %ux%ux%u threads in clusters of %d along z (grid z %u)\n", block.x,
                block.y, block.z, cluster, grid.z);
        std::abort();
    }
    block_threads = per_block;
    block_warps = (per_block + 31) / 32;
    cluster_size = cluster;
    // the kernel and its arguments, for thread_main: kept here while the launch runs
    static std::tuple<K, A...> call;
    call = {kernel, args...};
    body = [] { std::apply([](K k, A... a) { k(a...); }, call); };
    for (int t = 0; t < nthreads; t++)
        if (!threads[t].stack) {
            void *p = mmap(nullptr, STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                           -1, 0);
            if (p == MAP_FAILED) {
                perror("kemu: mmap");
                std::abort();
            }
            mprotect(p, 4096, PROT_NONE); // an overflow faults instead of writing the next stack
            threads[t].stack = static_cast<char *>(p);
        }
    for (unsigned bz = 0; bz < grid.z; bz += cluster)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                cluster_barrier = {nthreads, 0, 0};
                for (int r = 0; r < cluster; r++) {
                    block_barrier[r] = {per_block, 0, 0};
                    block_count[r] = 0;
                    for (int w = 0; w < block_warps; w++)
                        warp_barrier[r * block_warps + w] = {std::min(32, per_block - 32 * w), 0, 0};
                }
                for (int t = 0; t < nthreads; t++) {
                    Thread &th = threads[t];
                    th.done = false;
                    th.waiting = nullptr;
                    make_context(th.ctx, th.stack, STACK_BYTES, thread_main);
                }
                // dynamic shared memory starts as garbage (0xff bytes, NaN as floats), not as
                // the last block left it: a block that reads what it has not written fails
                std::memset(dynamic_shared, 0xff, sizeof dynamic_shared);
                int block_live[MAX_CLUSTER];
                for (int r = 0; r < cluster; r++)
                    block_live[r] = per_block;
                for (int live = nthreads; live > 0;) {
                    const unsigned long long before = events;
                    for (int t = 0; t < nthreads; t++) {
                        const Thread &w = threads[t];
                        if (w.done || (w.waiting && w.waiting->generation == w.waiting_generation))
                            continue; // it could not go on
                        if (warps_run_ahead && events != before)
                            break; // something moved: from the lowest-numbered thread again
                        current = t;
                        const int local = t % per_block;
                        threadIdx = {(unsigned)local % block.x, (unsigned)local / block.x % block.y,
                                     (unsigned)local / (block.x * block.y)};
                        blockIdx = {bx, by, bz + (unsigned)(t / per_block)};
#if KEMU_ASAN
                        void *fake = nullptr;
                        __sanitizer_start_switch_fiber(&fake, threads[t].stack, STACK_BYTES);
#endif
                        switch_context(scheduler, threads[t].ctx);
#if KEMU_ASAN
                        __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
                        live -= threads[t].done;
                        if (threads[t].done && --block_live[t / per_block] == 0 && cluster > 1)
                            std::memset(shared_of(t / per_block), 0xff, sizeof dynamic_shared / cluster);
                    }
                    if (events == before && live > 0) {
                        char in_cluster[32] = "";
                        if (cluster > 1)
                            snprintf(in_cluster, sizeof in_cluster, " (cluster of %d)", cluster);
                        fprintf(stderr,
                                "kemu: block (%u, %u, %u)%s: %d threads wait at a barrier the "
                                "others never reach\n",
                                bx, by, bz, in_cluster, live);
                        std::abort();
                    }
                }
            }
}
template <class K, class... A> void launch(dim3 grid, dim3 block, K kernel, A... args)
{
    launch_cluster(grid, block, 1, kernel, args...);
}
// every thread of the running cluster (barrier.cluster.arrive + wait)
inline void cluster_sync() { arrive_and_wait(cluster_barrier); }
} // namespace kemu

#endif
