/* The seeded inputs of every op (see random.h). */
#include "random.h"
#include "util.h"

#include <pthread.h>
#include <unistd.h>

enum {
    MAX_THREADS = 16,
    PER_THREAD = 1 << 22, /* elements: below, one thread costs less than starting another */
};

typedef struct Part {
    uint64_t state; /* the stream's state before the part's first element */
    float *dst;
    size_t n;
    float lo, hi;
} Part;

static void fill(const Part *p)
{
    uint64_t x = p->state;
    for (size_t i = 0; i < p->n; i++) {
        double u = (double)(cutune_splitmix64(&x) >> 11) * 0x1.0p-53; /* [0, 1) */
        float v = (float)(p->lo + (p->hi - p->lo) * u);
        p->dst[i] = v < p->hi ? v : p->lo; /* rounding to float must not reach hi */
    }
}

/* fill's arithmetic on the device, an element a thread: (hi - lo) in float, then a double
 * product and sum rounded apart (__dmul_rn, __dadd_rn: no fused multiply-add, which the
 * host's does not make either), so that every value is the host's bit for bit
 * (tests/test_gpu_random.c). */
const char cutune_random_uniform_cu[] =
    "extern \"C\" __global__ void cutune_random_uniform(float *dst, unsigned long long n,\n"
    "    unsigned long long first_state, float lo, float hi)\n"
    "{\n"
    "    unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;\n"
    "    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "         i < n; i += step) {\n"
    "        unsigned long long z = first_state + (i + 1) * 0x9e3779b97f4a7c15ULL;\n"
    "        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;\n"
    "        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;\n"
    "        z ^= z >> 31;\n"
    "        double u = (double)(z >> 11) * 0x1.0p-53;\n"
    "        float v = __double2float_rn(__dadd_rn((double)lo,\n"
    "                                              __dmul_rn((double)__fsub_rn(hi, lo), u)));\n"
    "        dst[i] = v < hi ? v : lo;\n"
    "    }\n"
    "}\n";

uint64_t cutune_random_first_state(uint64_t seed, uint64_t stream)
{
    return seed ^ (0xd1b54a32d192ed03ULL * (stream + 1));
}

static void *fill_thread(void *arg)
{
    fill(arg);
    return NULL;
}

void cutune_random_uniform_threads(uint64_t seed, uint64_t stream, float *dst, size_t n, float lo,
                                   float hi, int threads)
{
    /* a state hashed from (seed, stream); splitmix64 adds a constant a draw, so the state
     * before element i is the first state plus i of them: the parts start there */
    uint64_t x = cutune_random_first_state(seed, stream);
    if (threads <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus > 0 ? (int)cpus : 1;
    }
    size_t t = n / PER_THREAD;
    if (t > (size_t)threads)
        t = (size_t)threads;
    if (t > MAX_THREADS)
        t = MAX_THREADS;
    if (t < 1)
        t = 1;
    Part part[MAX_THREADS];
    pthread_t th[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    size_t chunk = (n + t - 1) / t;
    for (size_t i = 0; i < t; i++) {
        size_t first = i * chunk < n ? i * chunk : n;
        part[i] = (Part){x + (uint64_t)first * 0x9e3779b97f4a7c15ULL, dst + first,
                         (first + chunk < n ? first + chunk : n) - first, lo, hi};
    }
    for (size_t i = 1; i < t; i++)
        started[i] = pthread_create(&th[i], NULL, fill_thread, &part[i]) == 0;
    fill(&part[0]);
    for (size_t i = 1; i < t; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            fill(&part[i]); /* no thread to be had: this one does it */
    }
}

void cutune_random_uniform(uint64_t seed, uint64_t stream, float *dst, size_t n, float lo, float hi)
{
    cutune_random_uniform_threads(seed, stream, dst, n, lo, hi, 0);
}
