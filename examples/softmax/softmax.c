/* A new op written outside cutune, against the installed SDK only: a row-wise softmax.
 * It is a plugin built with `pkg-config --cflags cutune-plugin` (headers only: an op never
 * links libcutune or CUDA) into softmax.so, found through CUTUNE_PLUGIN_PATH; its variants
 * are data (softmax_naive.ini and .cu here), found through CUTUNE_SPACE_PATH.
 *
 * The op: y = softmax(x) along each row, float32, row-major; x is R x C. The size is RxC.
 * Kernel signature, for every variant:
 *   extern "C" __global__ void NAME(const float *x, float *y, int R, int C)
 * The inputs: row i holds values uniform in [-8, 8) from the seed, plus an offset that
 * cycles over +90, 0 and -110 (row 0 has +90). A kernel that does not subtract the row's
 * maximum overflows exp() past 88.7 in the +90 rows (inf / inf) and underflows it below
 * -103.9 in the -110 rows (0 / 0): a softmax must be right for any input, and these make a
 * kernel that is right only for small ones fail. y is poisoned with NaN before the checked
 * launch. The reference is computed on the host in double precision, and so is the check
 * (check() below derives its bounds). The yardstick is a device-to-device copy of as many
 * bytes as the op moves (8 R C). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutune/op.h"

#define OFFSETS 3
static const float row_offset[OFFSETS] = {90.0f, 0.0f, -110.0f};

typedef struct State {
    int R, C;
    float *x, *y; /* device */
    double *ref;  /* host: the reference */
    float *out;   /* host: y, copied back for the check */
} State;

static int check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    if (p->ndims != 2) {
        snprintf(err, errlen, "softmax takes RxC (rows x columns), got %d numbers", p->ndims);
        return -1;
    }
    if (p->dim[0] * p->dim[1] >= (1LL << 31)) {
        snprintf(err, errlen, "the matrix must have fewer than 2^31 elements");
        return -1;
    }
    return 0;
}

static double flops(const CutuneProblem *p)
{
    return 4.0 * (double)p->dim[0] * (double)p->dim[1]; /* max, exp, sum, divide */
}

static double bytes(const CutuneProblem *p)
{
    return 8.0 * (double)p->dim[0] * (double)p->dim[1];
}

static void teardown(const CutuneHost *host, void *state)
{
    State *s = state;
    if (!s)
        return;
    host->dev_free(host->ctx, s->x);
    host->dev_free(host->ctx, s->y);
    free(s->ref);
    free(s->out);
    free(s);
}

static int setup(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state)
{
    State *s = calloc(1, sizeof *s);
    if (!s)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    s->R = (int)p->dim[0];
    s->C = (int)p->dim[1];
    size_t n = (size_t)s->R * s->C;
    float *hx = malloc(n * sizeof *hx);
    s->ref = malloc(n * sizeof *s->ref);
    s->out = malloc(n * sizeof *s->out);
    int rc = hx && s->ref && s->out ? 0
                                    : host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    if (!rc) {
        host->random_uniform(seed, 0, hx, n, -8.0f, 8.0f);
        for (size_t i = 0; i < n; i++)
            hx[i] += row_offset[i / (size_t)s->C % OFFSETS];
        rc = cutune_op_upload(host, hx, n * sizeof *hx, (void **)&s->x);
    }
    if (!rc)
        rc = host->dev_alloc(host->ctx, n * sizeof(float), (void **)&s->y);
    for (int i = 0; !rc && i < s->R; i++) { /* the reference, in double on the host */
        const float *row = hx + (size_t)i * s->C;
        double mx = row[0], sum = 0, *ref = s->ref + (size_t)i * s->C;
        for (int j = 1; j < s->C; j++)
            mx = row[j] > mx ? row[j] : mx;
        for (int j = 0; j < s->C; j++)
            sum += ref[j] = exp((double)row[j] - mx);
        for (int j = 0; j < s->C; j++)
            ref[j] /= sum;
    }
    free(hx);
    if (rc) {
        teardown(host, s);
        return rc;
    }
    *state = s;
    return 0;
}

static int kernel_args(void *state, const CutuneConfig *cfg, void **args, int max)
{
    (void)cfg;
    State *s = state;
    if (max < 4)
        return -1;
    args[0] = &s->x;
    args[1] = &s->y;
    args[2] = &s->R;
    args[3] = &s->C;
    return 4;
}

static int poison_output(const CutuneHost *host, void *state)
{
    State *s = state;
    return cutune_op_poison(host, s->y, (size_t)s->R * s->C * sizeof(float));
}

/* The check, and where its bounds come from. u = 2^-24, the unit roundoff of float.
 *
 * What a kernel computes for row i, whatever its order of operations: each term
 * e_j = exp(x_j - m) to within a relative a, its sum S over the row (in any order, in any
 * tree of partial sums), and y_j = e_j / S, or e_j * (1 / S), to within a relative b.
 *   a = 64u: exp's error as CUDA documents it, 2 ulp for expf (4u) or 2 + floor(1.173 |t|)
 *       ulp for __expf (at |t| < 16, the spread of a row: 40u), plus the rounding of the
 *       argument x_j - m, half an ulp of a number below 16 (8u), with room for a kernel
 *       that computes exp2f(x log2 e) instead;
 *   b = 2u: two roundings at most (1 / S, then the product).
 * So y_j = ref_j * c * (1 + alpha_j)(1 + beta_j), |alpha_j| <= a, |beta_j| <= b, where
 * c = S_exact / S is one factor for the whole row: the sum's error, which grows with C,
 * scales every element of the row alike.
 *
 * 1. Each element against the row's own sum. Y = sum_j y_j = c (1 + theta) with |theta|
 *    <= g = (1 + a)(1 + b) - 1 (a mean of the (1 + alpha_j)(1 + beta_j), weighted by the
 *    ref_j, which sum to 1). So y_j / Y = ref_j (1 + alpha_j)(1 + beta_j) / (1 + theta):
 *        |y_j / Y - ref_j| <= ref_j * 2g / (1 - g)
 *    whatever the sum's error, plus the check's own rounding in double (C 2^-52). That is
 *    about 132u = 7.9e-6 at any C: one element 1e-3 off fails, at 32768 columns as at 100.
 * 2. The row's sum. The float sum of C positive terms in any order is within
 *    gamma_{C-1} = (C-1)u / (1 - (C-1)u) of the exact sum of those terms (Higham,
 *    "Accuracy and Stability of Numerical Algorithms", 2nd ed., section 4.2), and each
 *    term is within a of exp(x_j - m). A one-pass (online) kernel also rescales partial
 *    sums each time their maximum grows, each rescaling one more exp and one more product,
 *    (a + u): about ln C times in a pass over random inputs and once per level of a tree
 *    that merges partial sums, so 2 ceil(log2 C) + 8 rescalings are allowed. Hence
 *        |Y - 1| <= (1 + g) / ((1 - a')(1 - gamma_{C-1})) - 1,  a' = a + R (a + u)
 *    plus C 2^-52. This is the worst case of rounding, and it grows with C (2.1e-3 at
 *    32768 columns): a row off by a common factor smaller than that cannot be told from
 *    rounding. A statistical bound would be tighter, but not safe: a plain sequential sum
 *    of these terms drifts by 3 to 4 u sqrt(C) (the small terms it drops), measured on the
 *    CPU at 128 to 65536 columns.
 * NaN or infinity never passes. */
static int check(const CutuneHost *host, void *state, CutuneCheck *out)
{
    State *s = state;
    const double u = 0x1p-24, a = 64 * u, b = 2 * u, g = (1 + a) * (1 + b) - 1;
    const double own = (s->C + 4) * 0x1p-52; /* the check's rounding in double */
    const int rescales = 2 * (int)ceil(log2((double)s->C)) + 8;
    const double a_sum = a + rescales * (a + u);
    const double gamma = (s->C - 1) * u / (1 - (s->C - 1) * u);
    const double tol_el = 2 * g / (1 - g) + own;
    const double tol_sum = (1 + g) / ((1 - a_sum) * (1 - gamma)) - 1 + own;
    size_t n = (size_t)s->R * s->C;
    int rc = host->copy_to_host(host->ctx, s->out, s->y, n * sizeof *s->out);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    out->passed = 1;
    out->tolerance = tol_el;
    for (int i = 0; i < s->R && out->passed; i++) {
        const float *y = s->out + (size_t)i * s->C;
        const double *ref = s->ref + (size_t)i * s->C;
        double Y = 0;
        for (int j = 0; j < s->C && out->passed; j++) {
            Y += y[j];
            if (!isfinite(y[j])) {
                out->passed = 0;
                out->error = NAN;
                snprintf(out->message, sizeof out->message,
                         "y[%d][%d] = %g: not a number (the row's inputs are about %+.0f; a "
                         "kernel must subtract the row's maximum before exp)",
                         i, j, (double)y[j], (double)row_offset[i % OFFSETS]);
            }
        }
        if (!out->passed)
            break;
        if (!(fabs(Y - 1) <= tol_sum)) {
            out->passed = 0;
            out->error = fabs(Y - 1);
            out->tolerance = tol_sum;
            snprintf(out->message, sizeof out->message,
                     "row %d sums to %.9g: |sum - 1| = %.3g > %.3g, the worst-case rounding of "
                     "a sum of %d terms",
                     i, Y, fabs(Y - 1), tol_sum, s->C);
            break;
        }
        for (int j = 0; j < s->C; j++) {
            double e = fabs(y[j] / Y - ref[j]) / ref[j];
            if (!(e <= tol_el)) {
                out->passed = 0;
                snprintf(out->message, sizeof out->message,
                         "y[%d][%d] = %.9g, expected %.9g: relative error %.3g (after dividing "
                         "the row by its sum, %.9g) > %.3g",
                         i, j, (double)y[j], ref[j], e, Y, tol_el);
                out->error = e;
                break;
            }
            out->error = e > out->error ? e : out->error;
        }
    }
    return 0;
}

static int yardstick(const CutuneHost *host, void *state, const CutuneProblem *p,
                     CutuneYardstick *out)
{
    (void)state;
    return host->memcpy_yardstick(host->ctx, bytes(p), out);
}

static const CutuneOp op = {
    .abi_major = CUTUNE_ABI_MAJOR,
    .abi_minor = CUTUNE_ABI_MINOR,
    .struct_size = sizeof(CutuneOp),
    .name = "softmax",
    .summary = "y = softmax(x) along each row, float32 (an example written out of the tree)",
    .dim_names = "R,C",
    .size_help = "RxC (rows x columns)",
    .signature = "const float *x, float *y, int R, int C",
    .nargs = 4,
    .check_problem = check_problem,
    .setup = setup,
    .kernel_args = kernel_args,
    .poison_output = poison_output,
    .check = check,
    .teardown = teardown,
    .flops = flops,
    .bytes = bytes,
    .yardstick = yardstick,
};

CUTUNE_PLUGIN_EXPORT const CutuneOp *cutune_op(void)
{
    return &op;
}
