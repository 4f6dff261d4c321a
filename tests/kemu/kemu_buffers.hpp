// kemu_buffers.hpp: the buffers of one size of a matmul test on the CPU (kemu_tc.hpp's, for
// the 16-bit kernels, and kemu_tf32.cpp's): A, B and C 16-byte aligned, or (shift 1) one
// element later, C between GUARD elements that hold a guard value, C itself poisoned.
#ifndef CUTUNE_KEMU_BUFFERS_HPP
#define CUTUNE_KEMU_BUFFERS_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace emu
{
// n inputs uniform in [-1, 1) from gen, each through round (to the kernel's element type)
template <class T, class Round>
std::vector<T> random_inputs(std::mt19937 &gen, size_t n, Round round)
{
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<T> v(n);
    for (auto &x : v)
        x = round(dist(gen));
    return v;
}

enum { GUARD = 16 };

template <class T> struct Buffers {
    std::vector<T> a, b, c;
    T *A, *B, *C; // C has GUARD elements on either side
};

// v's first 16-byte aligned element, shift elements on
template <class T> T *aligned(std::vector<T> &v, int shift)
{
    const uintptr_t p = reinterpret_cast<uintptr_t>(v.data());
    return v.data() + ((16 - p % 16) % 16) / sizeof(T) + shift;
}

// *bf with the inputs ha and hb and an output of mn elements, each shift elements after a
// 16-byte boundary: C's guards hold guard, C holds poison.
template <class T>
void buffers_make(Buffers<T> *bf, const std::vector<T> &ha, const std::vector<T> &hb, size_t mn,
                  int shift, T guard, T poison)
{
    const size_t room = 16 / sizeof(T) + 1; // to the next 16-byte boundary, and the shift
    bf->a.resize(ha.size() + room), bf->b.resize(hb.size() + room),
        bf->c.resize(mn + 2 * GUARD + room);
    bf->A = aligned(bf->a, shift), bf->B = aligned(bf->b, shift),
    bf->C = aligned(bf->c, shift) + GUARD;
    std::copy(ha.begin(), ha.end(), bf->A);
    std::copy(hb.begin(), hb.end(), bf->B);
    std::fill(bf->C - GUARD, bf->C + mn + GUARD, guard);
    std::fill(bf->C, bf->C + mn, poison);
}
} // namespace emu

#endif
