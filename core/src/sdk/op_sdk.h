/* What the shipped ops (plugins/<op>/<op>.c) share, header-only: an op never links
 * libcutune, only cutune/op.h, so the op SDK's code for them lives here as static inline
 * functions and initialiser macros. Nothing here is part of the installed API. */
#ifndef CUTUNE_OP_SDK_H
#define CUTUNE_OP_SDK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cutune/op.h"

/* A number as a string literal, for messages: CUTUNE_OP_STR(2048) is "2048". */
#define CUTUNE_OP_STR_(x) #x
#define CUTUNE_OP_STR(x) CUTUNE_OP_STR_(x)

/* The fields of a CutuneOp that say which ABI it was built for. */
#define CUTUNE_OP_ABI                                                                        \
    .abi_major = CUTUNE_ABI_MAJOR, .abi_minor = CUTUNE_ABI_MINOR, .struct_size = sizeof(CutuneOp)

/* The callbacks every op has, as the static functions of the same names in its file. */
#define CUTUNE_OP_CALLBACKS                                                                  \
    .check_problem = check_problem, .setup = setup, .kernel_args = kernel_args,              \
    .poison_output = poison_output, .check = check, .teardown = teardown, .flops = flops,    \
    .bytes = bytes

/* The yardstick of a memory-bound op: a device-to-device copy of as many bytes as the op
 * moves (its bytes()). Defines the op's static yardstick(). */
#define CUTUNE_OP_MEMCPY_YARDSTICK                                                           \
    static int yardstick(const CutuneHost *host, void *state, const CutuneProblem *p,        \
                         CutuneYardstick *out)                                               \
    {                                                                                        \
        (void)state;                                                                         \
        return host->memcpy_yardstick(host->ctx, bytes(p), out);                             \
    }

/* A kernel_args answer: args[i] = from[i] for the n arguments, or -1 when max < n. */
static inline int cutune_op_args(void **args, int max, void *const *from, int n)
{
    if (max < n)
        return -1;
    memcpy(args, from, (size_t)n * sizeof *args);
    return n;
}

/* Free n device buffers (NULL ones too: dev_free accepts them). */
static inline void cutune_op_dev_free(const CutuneHost *host, void *const *bufs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        host->dev_free(host->ctx, bufs[i]);
}

/* "N" for a square (or cubic) size: one number becomes ndims equal ones. */
static inline void cutune_op_square(CutuneProblem *p, int ndims)
{
    if (p->ndims != 1)
        return;
    for (int i = 1; i < ndims; i++)
        p->dim[i] = p->dim[0];
    p->ndims = ndims;
}

/* check_launch of an op whose scratch memory holds one slot per block, for max blocks:
 * 0, or -1 with why = "a grid of B blocks, but the op holds <holds>". */
static inline int cutune_op_check_blocks(const CutuneLaunch *l, uint64_t max, char *why,
                                         size_t len, const char *holds)
{
    uint64_t blocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    if (blocks <= max)
        return 0;
    snprintf(why, len, "a grid of %llu blocks, but the op holds %s", (unsigned long long)blocks,
             holds);
    return -1;
}

#endif
