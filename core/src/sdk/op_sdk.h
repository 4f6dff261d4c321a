/* What the shipped ops (plugins/<op>/<op>.c) share, header-only: an op never links
 * libcutune, only cutune/op.h, so the op SDK's code for them lives here as static inline
 * functions and initialiser macros. Nothing here is part of the installed API.
 *
 * An op built on it states its state's layout once, in two tables, and the SDK derives
 * the callbacks that only follow the layout:
 *   - kernel_arg_fields[]: the offsets of the state's fields that are the kernel's
 *     arguments, in the order of the signature (kernel_args, and nargs);
 *   - buffers(state): the state's device buffers, what each holds and how large it is
 *     (setup allocates and fills them with cutune_op_make_buffers, poison_output poisons
 *     the outputs, teardown frees them with the state).
 * The op keeps what is its own: check_problem, setup (the dimensions and the reference,
 * around which CUTUNE_OP_SETUP writes the rest), check, flops and bytes, and the
 * descriptor's text (CUTUNE_OP_DEFINE). */
#ifndef CUTUNE_OP_SDK_H
#define CUTUNE_OP_SDK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutune/op.h"

/* A number as a string literal, for messages: CUTUNE_OP_STR(2048) is "2048". */
#define CUTUNE_OP_STR_(x) #x
#define CUTUNE_OP_STR(x) CUTUNE_OP_STR_(x)

/* ---- the state's device buffers ---- */

/* What a buffer holds, which says what setup and poison_output do with it. */
enum {
    CUTUNE_OP_PLAIN,   /* setup fills it itself (a reference, scratch the kernel overwrites) */
    CUTUNE_OP_UNIFORM, /* an input: floats uniform in [-1, 1) from the seed's `stream` */
    CUTUNE_OP_ZEROED,  /* zero bytes after setup (counters the kernels set back to zero) */
    CUTUNE_OP_OUTPUT,  /* the kernel's output: 0xFF bytes before each checked launch */
};

typedef struct CutuneOpBuffer {
    void **dev; /* the state's field holding the device pointer */
    size_t bytes;
    int holds;         /* CUTUNE_OP_PLAIN, ... */
    uint64_t stream;   /* CUTUNE_OP_UNIFORM: the generator stream */
    float **host_copy; /* CUTUNE_OP_UNIFORM: the state's field that keeps the host values
                          (freed with the state), or NULL */
} CutuneOpBuffer;

#define CUTUNE_OP_MAX_BUFFERS 12

/* A state's buffers: the list ends at CUTUNE_OP_MAX_BUFFERS or at the first entry whose dev
 * is NULL (the entries a compound literal leaves out). */
typedef struct CutuneOpBuffers {
    CutuneOpBuffer entry[CUTUNE_OP_MAX_BUFFERS];
} CutuneOpBuffers;

/* The entries of a buffers() list, for a field of the state. */
#define CUTUNE_OP_INPUT(field, n, stream) \
    { \
        (void **)(field), (size_t)(n) * sizeof(float), CUTUNE_OP_UNIFORM, (stream), NULL \
    }
#define CUTUNE_OP_INPUT_KEPT(field, n, stream, host_field) \
    { \
        (void **)(field), (size_t)(n) * sizeof(float), CUTUNE_OP_UNIFORM, (stream), (host_field) \
    }
#define CUTUNE_OP_BUFFER(field, bytes) \
    { \
        (void **)(field), (bytes), CUTUNE_OP_PLAIN, 0, NULL \
    }
#define CUTUNE_OP_ZEROS(field, bytes) \
    { \
        (void **)(field), (bytes), CUTUNE_OP_ZEROED, 0, NULL \
    }
#define CUTUNE_OP_RESULT(field, bytes) \
    { \
        (void **)(field), (bytes), CUTUNE_OP_OUTPUT, 0, NULL \
    }

typedef CutuneOpBuffers (*CutuneOpBuffersFn)(void *state);

/* Each buffer of a list, as `const CutuneOpBuffer *it`. */
#define CUTUNE_OP_EACH_BUFFER(it, list) \
    for (const CutuneOpBuffer *it = (list).entry; \
         it < (list).entry + CUTUNE_OP_MAX_BUFFERS && it->dev; it++)

/* Allocate the buffers of a state whose dimensions are set, and fill the inputs and the
 * zeroed ones. 0, or the host's error (the state then holds what was allocated: free it
 * with cutune_op_free_state). */
static inline int cutune_op_make_buffers(const CutuneHost *host, void *state,
                                         CutuneOpBuffersFn buffers, uint64_t seed)
{
    CutuneOpBuffers list = buffers(state);
    int rc = 0;
    CUTUNE_OP_EACH_BUFFER(b, list)
    {
        if (b->holds == CUTUNE_OP_UNIFORM)
            rc = cutune_op_random_floats(host, b->bytes / sizeof(float), seed, b->stream, -1.0f,
                                         1.0f, (float **)b->dev, b->host_copy);
        else
            rc = host->dev_alloc(host->ctx, b->bytes, b->dev);
        if (!rc && b->holds == CUTUNE_OP_ZEROED)
            rc = host->dev_memset(host->ctx, *b->dev, 0, b->bytes);
        if (rc)
            break;
    }
    return rc;
}

/* Free a state (NULL: nothing), its device buffers and the host copies of its inputs. */
static inline void cutune_op_free_state(const CutuneHost *host, void *state,
                                        CutuneOpBuffersFn buffers)
{
    if (!state)
        return;
    CutuneOpBuffers list = buffers(state);
    CUTUNE_OP_EACH_BUFFER(b, list)
    {
        host->dev_free(host->ctx, *b->dev); /* NULL ones too: dev_free accepts them */
        if (b->host_copy)
            free(*b->host_copy);
    }
    free(state);
}

/* The end of setup: rc 0 hands the state over in *out; otherwise it is freed. Returns rc. */
static inline int cutune_op_setup_end(const CutuneHost *host, void *state,
                                      CutuneOpBuffersFn buffers, int rc, void **out)
{
    if (rc)
        cutune_op_free_state(host, state, buffers);
    else
        *out = state;
    return rc;
}

/* setup() of an op whose state is a Type (the file's buffers() describing it): a zeroed
 * state, its dimensions from the problem (the file's static void setup_dims(Type *s, const
 * CutuneProblem *p)), its buffers made (cutune_op_make_buffers), then the reference (the
 * file's static int setup_reference(const CutuneHost *host, Type *s): 0 or the host's
 * error); on a failure the state is freed and the host's error returned. */
#define CUTUNE_OP_SETUP(Type) \
    static int setup(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state) \
    { \
        Type *s = calloc(1, sizeof *s); \
        if (!s) \
            return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory"); \
        setup_dims(s, p); \
        int rc = cutune_op_make_buffers(host, s, buffers, seed); \
        if (!rc) \
            rc = setup_reference(host, s); \
        return cutune_op_setup_end(host, s, buffers, rc, state); \
    }

/* Fill every output buffer with 0xFF bytes (NaN floats, -1 integers). */
static inline int cutune_op_poison_outputs(const CutuneHost *host, void *state,
                                           CutuneOpBuffersFn buffers)
{
    CutuneOpBuffers list = buffers(state);
    int rc = 0;
    CUTUNE_OP_EACH_BUFFER(b, list)
    {
        if (b->holds == CUTUNE_OP_OUTPUT && (rc = cutune_op_poison(host, *b->dev, b->bytes)))
            break;
    }
    return rc;
}

/* ---- the kernel's arguments ---- */

/* args[i] = the field of state at fields[i], for the n arguments; -1 when max < n. */
static inline int cutune_op_field_args(void *state, const size_t *fields, int n, void **args,
                                       int max)
{
    if (max < n)
        return -1;
    for (int i = 0; i < n; i++)
        args[i] = (char *)state + fields[i];
    return n;
}

/* How many arguments the file's kernel_arg_fields[] lists. */
#define CUTUNE_OP_NARGS ((int)(sizeof kernel_arg_fields / sizeof kernel_arg_fields[0]))

/* ---- the problem and the launch ---- */

/* "N" for a square (or cubic) size: one number becomes ndims equal ones. */
static inline void cutune_op_square(CutuneProblem *p, int ndims)
{
    if (p->ndims != 1)
        return;
    for (int i = 1; i < ndims; i++)
        p->dim[i] = p->dim[0];
    p->ndims = ndims;
}

/* The start of check_problem for an op of ndims dimensions where one number means ndims
 * equal ones ("N" is NxN): 0, or -1 with err = "<takes>, got <count> numbers". */
static inline int cutune_op_check_square(CutuneProblem *p, int ndims, const char *takes, char *err,
                                         size_t errlen)
{
    cutune_op_square(p, ndims);
    if (p->ndims == ndims)
        return 0;
    snprintf(err, errlen, "%s, got %d numbers", takes, p->ndims);
    return -1;
}

/* 0 when a matrix of `elements` is indexed by int (fewer than 2^31 elements), else -1 with
 * err = why. */
static inline int cutune_op_check_int_size(int64_t elements, const char *why, char *err,
                                           size_t errlen)
{
    if (elements < (1LL << 31))
        return 0;
    snprintf(err, errlen, "%s", why);
    return -1;
}

/* check_launch of an op whose scratch memory holds one slot per block, for max blocks:
 * 0, or -1 with why = "a grid of B blocks, but the op holds <holds>". */
static inline int cutune_op_check_blocks(const CutuneLaunch *l, uint64_t max, char *why, size_t len,
                                         const char *holds)
{
    uint64_t blocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    if (blocks <= max)
        return 0;
    snprintf(why, len, "a grid of %llu blocks, but the op holds %s", (unsigned long long)blocks,
             holds);
    return -1;
}

/* Run a reference kernel written as a grid-stride loop over n elements: blocks of 256
 * threads, as many as n needs up to 8192. args as for host->run_kernel. */
static inline int cutune_op_run_strided(const CutuneHost *host, const char *source,
                                        const char *kernel, size_t n, void **args)
{
    size_t blocks = (n + 255) / 256;
    blocks = blocks == 0 ? 1 : blocks > 8192 ? 8192 : blocks;
    CutuneLaunch l = {{(unsigned)blocks, 1, 1}, {256, 1, 1}, 0};
    return host->run_kernel(host->ctx, source, kernel, &l, args);
}

/* ---- the descriptor ---- */

/* flops() of an op with no arithmetic to count (it moves or counts data): 0, as cutune/op.h
 * asks where the measure does not apply. */
#define CUTUNE_OP_NO_FLOPS \
    static double flops(const CutuneProblem *p) \
    { \
        (void)p; \
        return 0; \
    }

/* The yardstick of a memory-bound op: a device-to-device copy of as many bytes as the op
 * moves (its bytes()). Defines the op's static yardstick(). */
#define CUTUNE_OP_MEMCPY_YARDSTICK \
    static int yardstick(const CutuneHost *host, void *state, const CutuneProblem *p, \
                         CutuneYardstick *out) \
    { \
        (void)state; \
        return host->memcpy_yardstick(host->ctx, bytes(p), out); \
    }

/* The op's descriptor, `op`, and its getter cutune_op_<name>(void) (plugins/export.c
 * exports it as cutune_op). The descriptor takes the ABI fields, the name, the text fields
 * given after it (summary, dim_names, size_help, signature, and check_launch where the op
 * has one), and the file's static functions check_problem, setup, check, flops, bytes and
 * yardstick. It defines, from kernel_arg_fields[] and buffers(), the callbacks that only
 * follow the state's layout: kernel_args (with nargs), poison_output and teardown. */
#define CUTUNE_OP_DEFINE(op_name, ...) \
    static int kernel_args(void *state, const CutuneConfig *cfg, void **args, int max) \
    { \
        (void)cfg; \
        return cutune_op_field_args(state, kernel_arg_fields, CUTUNE_OP_NARGS, args, max); \
    } \
    static int poison_output(const CutuneHost *host, void *state) \
    { \
        return cutune_op_poison_outputs(host, state, buffers); \
    } \
    static void teardown(const CutuneHost *host, void *state) \
    { \
        cutune_op_free_state(host, state, buffers); \
    } \
    static const CutuneOp op = {.abi_major = CUTUNE_ABI_MAJOR, \
                                .abi_minor = CUTUNE_ABI_MINOR, \
                                .struct_size = sizeof(CutuneOp), \
                                .name = #op_name, \
                                .nargs = CUTUNE_OP_NARGS, \
                                .check_problem = check_problem, \
                                .setup = setup, \
                                .kernel_args = kernel_args, \
                                .poison_output = poison_output, \
                                .check = check, \
                                .teardown = teardown, \
                                .flops = flops, \
                                .bytes = bytes, \
                                .yardstick = yardstick, \
                                __VA_ARGS__}; \
    const CutuneOp *cutune_op_##op_name(void) \
    { \
        return &op; \
    }

#endif
