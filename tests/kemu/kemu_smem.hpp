// kemu_smem.hpp: shared memory as the tensor-core kernels use it, on the CPU (kemu.hpp):
// byte addresses, cp.async with its commit groups, ldmatrix, the 16-byte and 8-byte shared
// loads, their bank conflicts, and thread block cluster ranks, barriers and
// distributed shared memory. kemu_tf32.cpp uses it as it is; kemu_tc.hpp (the 16-bit
// kernels' tests) builds on it. Each instruction is emulated from the PTX ISA's definition,
// independently of the kernels' code (an 8 x 8 matrix of ldmatrix: lane l receives row l / 4,
// elements 2 (l % 4) and 2 (l % 4) + 1, or with .trans the same of the transposed matrix).
// cp.async is emulated twice: its copies land at once (a stage overwritten while another
// warp still reads it shows), or (deferred) only at the wait that must cover them (a wait
// too short shows). cp.async, ldmatrix and 16-byte load addresses must be 16-byte aligned, as on the GPU,
// or the test aborts.
#ifndef CUTUNE_KEMU_SMEM_HPP
#define CUTUNE_KEMU_SMEM_HPP

#include "kemu.hpp"

#include <cmath>
#include <cstdio>

#define CUTUNE_KEMU 1
#define __cluster_dims__(...)

// uint2, uint4, float2 and their make_ functions come with kemu.hpp

namespace emu
{
[[noreturn]] inline void fail(const char *what, unsigned long long v)
{
    fprintf(stderr, "kemu: %s (0x%llx)\n", what, v);
    std::abort();
}

// the dynamic shared memory the launch gives a block, when the test knows it
inline unsigned shared_limit = sizeof kemu::dynamic_shared;
inline char *smem_at(unsigned a)
{
    if (a >= shared_limit || a >= sizeof kemu::dynamic_shared)
        fail("a shared address past the launch's dynamic shared memory", a);
    return reinterpret_cast<char *>(kemu::dynamic_shared) + a;
}

// A 16-byte copy to shared memory, kept until it lands (the copies are asynchronous).
struct Copy {
    char *dst;
    unsigned char data[16];
};
// cp.async's copies of each thread not yet in a group (or tied to an mbarrier), and its
// commit groups: they land at once, or (deferred) only when the kernel's wait must have them
inline bool deferred;
inline std::vector<Copy> open_group[kemu::MAX_THREADS];
inline std::vector<std::vector<Copy>> groups[kemu::MAX_THREADS];
// the global memory a copy may read (the test's A and B), when the test names it: a copy
// from anywhere else aborts
inline const char *readable[2][2];

// what a warp's lanes hand each other in a collective instruction
inline unsigned exchange[kemu::MAX_THREADS / 32][32][6];

// Shared memory bank conflicts, counted as the extra wavefronts they cost. Shared memory has
// 32 banks of 4 bytes: a 16-byte access falls in one of 8 groups of 4 banks ((addr / 16) %
// 8), and a quarter-warp (8 lanes) of 16-byte accesses, or the 8 rows of an ldmatrix
// matrix, take one wavefront when their groups differ, else as many as the most any group
// gets. The 16-byte accesses of single threads (cp.async destinations, 16-byte shared loads)
// are recorded per thread (a warp's i-th ones are one instruction) and counted after the
// launch.
struct Accesses {
    std::vector<unsigned> addr[kemu::MAX_THREADS];
    long conflicts;
};
inline long ldmatrix_conflicts;
inline Accesses copies, loads; // cp.async destinations; ld.shared.v4 addresses
inline Accesses words;         // st.shared of 4 bytes (a warp's i-th ones are one instruction)
inline Accesses dwords;        // ld.shared of 8 bytes (the same)
inline int extra_wavefronts(const unsigned *addr, int n) // n addresses of 16-byte accesses
{
    int per_group[8] = {0}, most = 0;
    for (int i = 0; i < n; i++) {
        bool again = false; // the same 16 bytes twice is one access
        for (int j = 0; j < i; j++)
            again |= addr[j] / 16 == addr[i] / 16;
        if (!again)
            most = std::max(most, ++per_group[addr[i] / 16 % 8]);
    }
    return most - 1;
}
inline void count_conflicts(Accesses &x, int nthreads)
{
    for (int w = 0; w < nthreads / 32; w++)
        for (size_t k = 0; k < x.addr[32 * w + 31].size(); k++) // as many in each lane
            for (int q = 0; q < 4; q++) {
                unsigned a[8];
                for (int l = 0; l < 8; l++)
                    a[l] = x.addr[32 * w + 8 * q + l][k];
                x.conflicts += extra_wavefronts(a, 8);
            }
    for (int t = 0; t < kemu::MAX_THREADS; t++)
        x.addr[t].clear();
}
// The same for 4-byte accesses: a warp's 32 lanes take one wavefront when no two of them
// reach different words of one bank ((addr / 4) % 32), else as many as the most words a bank
// gets (the same word twice is one access).
inline void count_word_conflicts(Accesses &x, int nthreads)
{
    for (int w = 0; w < nthreads / 32; w++)
        for (size_t k = 0; k < x.addr[32 * w + 31].size(); k++) {
            int most = 0;
            for (int bank = 0; bank < 32; bank++) {
                unsigned seen[32];
                int n = 0;
                for (int l = 0; l < 32; l++) {
                    const unsigned a = x.addr[32 * w + l][k] / 4;
                    if (a % 32 != (unsigned)bank)
                        continue;
                    bool again = false;
                    for (int j = 0; j < n; j++)
                        again |= seen[j] == a;
                    if (!again)
                        seen[n++] = a;
                }
                most = std::max(most, n);
            }
            x.conflicts += most - 1;
        }
    for (int t = 0; t < kemu::MAX_THREADS; t++)
        x.addr[t].clear();
}
// The same for 8-byte accesses: a warp's are served a half-warp at a time (16 lanes, 128
// bytes), each half taking one wavefront when no two of its lanes reach different words of one
// bank, else as many as the most words a bank gets.
inline void count_dword_conflicts(Accesses &x, int nthreads)
{
    for (int h = 0; h < nthreads / 16; h++)
        for (size_t k = 0; k < x.addr[16 * h + 15].size(); k++) {
            unsigned seen[32][32];
            int n[32] = {0}, most = 0;
            for (int l = 0; l < 16; l++)
                for (unsigned e = 0; e < 2; e++) {
                    const unsigned a = x.addr[16 * h + l][k] / 4 + e, bank = a % 32;
                    bool again = false;
                    for (int j = 0; j < n[bank]; j++)
                        again |= seen[bank][j] == a;
                    if (!again)
                        seen[bank][n[bank]++] = a;
                    most = std::max(most, n[bank]);
                }
            x.conflicts += most - 1;
        }
    for (int t = 0; t < kemu::MAX_THREADS; t++)
        x.addr[t].clear();
}
// copies whose group no wait has covered (a launch must leave none)
inline long pending_copies()
{
    long n = 0;
    for (int t = 0; t < kemu::MAX_THREADS; t++)
        n += (long)(groups[t].size() + open_group[t].size());
    return n;
}
// A thread's asynchronous operations (cp.async's copies, wgmma's products): commit_group
// makes the open ones a group; wait_groups carries out the oldest groups, in order, until
// at most n are left.
template <class Op> void commit_group(std::vector<Op> &open, std::vector<std::vector<Op>> &groups)
{
    groups.push_back(std::move(open));
    open.clear();
}
template <class Op, class Run> void wait_groups(std::vector<std::vector<Op>> &groups, size_t n, Run run)
{
    while (groups.size() > n) {
        for (const Op &op : groups.front())
            run(op);
        groups.erase(groups.begin());
    }
}

inline void warp_sync()
{
    kemu::arrive_and_wait(kemu::warp_barrier[kemu::warp_id()]);
}
} // namespace emu

inline unsigned smem_addr(const void *p)
{
    return (unsigned)(static_cast<const char *>(p) -
                      reinterpret_cast<const char *>(kemu::dynamic_shared));
}
// 16 bytes to shared memory, of which the first `bytes` are read from src, the rest zeroed;
// both addresses 16-byte aligned, as on the GPU
inline void cp_async16(unsigned dst, const void *src, int bytes)
{
    if (dst % 16 || (bytes && reinterpret_cast<uintptr_t>(src) % 16) || bytes < 0 || bytes > 16)
        emu::fail("cp.async: a misaligned address or a bad size", dst);
    const char *from = static_cast<const char *>(src);
    if (bytes && emu::readable[0][0] &&
        !(from >= emu::readable[0][0] && from + bytes <= emu::readable[0][1]) &&
        !(from >= emu::readable[1][0] && from + bytes <= emu::readable[1][1]))
        emu::fail("cp.async: a read outside A and B", reinterpret_cast<uintptr_t>(src));
    emu::copies.addr[kemu::current].push_back(dst);
    emu::Copy c{emu::smem_at(dst), {}};
    std::memcpy(c.data, src, (size_t)bytes);
    if (emu::deferred)
        emu::open_group[kemu::current].push_back(c);
    else
        std::memcpy(c.dst, c.data, 16);
}
inline void cp_async_commit()
{
    if (emu::deferred)
        emu::commit_group(emu::open_group[kemu::current], emu::groups[kemu::current]);
}
template <int N_> void cp_async_wait()
{
    emu::wait_groups(emu::groups[kemu::current], N_,
                     [](const emu::Copy &c) { std::memcpy(c.dst, c.data, 16); });
}

inline void ldmatrix(unsigned (&r)[4], unsigned addr, bool trans)
{
    const int w = kemu::warp_id(), l = kemu::linear_id() % 32;
    if (addr % 16)
        emu::fail("ldmatrix: a row address not 16-byte aligned", addr);
    emu::exchange[w][l][0] = addr;
    emu::warp_sync();
    if (l == 0)
        for (int m = 0; m < 4; m++) {
            unsigned rows[8];
            for (int i = 0; i < 8; i++)
                rows[i] = emu::exchange[w][8 * m + i][0];
            emu::ldmatrix_conflicts += emu::extra_wavefronts(rows, 8);
        }
    auto at = [&](int lane, int byte) {
        unsigned short h;
        std::memcpy(&h, emu::smem_at(emu::exchange[w][lane][0] + byte), 2);
        return (unsigned)h;
    };
    for (int m = 0; m < 4; m++) // matrix m's rows come from lanes 8m .. 8m + 7
        if (!trans)
            r[m] = at(8 * m + l / 4, 4 * (l % 4)) | at(8 * m + l / 4, 4 * (l % 4) + 2) << 16;
        else
            r[m] = at(8 * m + 2 * (l % 4), 2 * (l / 4)) | at(8 * m + 2 * (l % 4) + 1, 2 * (l / 4))
                                                              << 16;
    emu::warp_sync(); // everyone has read before the next collective
}
inline void ldmatrix_x4(unsigned (&r)[4], unsigned addr)
{
    ldmatrix(r, addr, false);
}
inline void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr)
{
    ldmatrix(r, addr, true);
}

// ld.shared.v4: 16 bytes of shared memory (one thread's; the bank conflicts of a warp's are
// counted after the launch)
inline void lds128(unsigned (&r)[4], unsigned addr)
{
    if (addr % 16)
        emu::fail("ld.shared.v4: an address not 16-byte aligned", addr);
    emu::loads.addr[kemu::current].push_back(addr);
    std::memcpy(r, emu::smem_at(addr), 16);
}

// ld.shared.v2.u32: 8 bytes of shared memory (the bank conflicts of a warp's are counted after
// the launch)
inline void lds64(unsigned &x, unsigned &y, unsigned addr)
{
    if (addr % 8)
        emu::fail("ld.shared.v2: an address not 8-byte aligned", addr);
    emu::dwords.addr[kemu::current].push_back(addr);
    std::memcpy(&x, emu::smem_at(addr), 4);
    std::memcpy(&y, emu::smem_at(addr + 4), 4);
}

// st.shared.f32: 4 bytes to shared memory (the bank conflicts of a warp's are counted after
// the launch)
inline void sts32(unsigned addr, float v)
{
    if (addr % 4)
        emu::fail("st.shared.f32: an address not 4-byte aligned", addr);
    emu::words.addr[kemu::current].push_back(addr);
    std::memcpy(emu::smem_at(addr), &v, 4);
}

inline unsigned cluster_rank()
{
    return (unsigned)kemu::block_rank();
}
inline void cluster_sync()
{
    kemu::cluster_sync();
}
// `bytes` (4, 8 or 16) of block `rank`'s shared memory at the place of `local` in this block's
inline void cluster_copy(void *dst, const void *local, unsigned rank, size_t bytes)
{
    const char *mine = kemu::shared_of(kemu::block_rank());
    const size_t off = (size_t)(static_cast<const char *>(local) - mine);
    if (off % bytes)
        emu::fail("ld.shared::cluster: a misaligned address", off);
    std::memcpy(dst, kemu::shared_of((int)rank) + off, bytes);
}

#endif
