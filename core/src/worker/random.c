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
    uint64_t x = seed ^ (0xd1b54a32d192ed03ULL * (stream + 1));
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
