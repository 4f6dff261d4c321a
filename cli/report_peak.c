/* The compute peak a matmul's rate is a share of (see report.h). */
#include "report.h"
#include "util.h"

#include <string.h>

/* Dense flops per clock per SM of an element type's matmul path, from NVIDIA's data sheets
 * (A100: 19.5 TFLOP/s FP32, 156 TF32, 312 BF16/FP16 at 1410 MHz and 108 SMs; H100 SXM: 67
 * FP32 at 1980 MHz, 495 TF32 and 989 BF16/FP16 at 1830 MHz, 132 SMs). fp32 is the CUDA
 * cores' peak: a 3xTF32 kernel, which computes FP32 on the tensor cores, can pass it. */
static const struct {
    int cc, fp32, tf32, half;
} rates[] = {
    {80, 128, 1024, 2048},
    {90, 256, 2048, 4096},
};

double report_peak_tflops(const Report *r, const char *size, const char **kind)
{
    *kind = "";
    CutuneProblem p;
    if (!size || cutune_problem_parse(size, &p, NULL) != 0 || !r->op ||
        strcmp(r->op, "matmul") != 0 || r->sm_count <= 0 || r->sm_clock_khz <= 0)
        return 0;
    int half = p.dtype == CUTUNE_DTYPE_BF16 || p.dtype == CUTUNE_DTYPE_FP16;
    for (size_t i = 0; i < sizeof rates / sizeof *rates; i++) {
        if (rates[i].cc != 10 * r->cc_major + r->cc_minor)
            continue;
        int per = half                           ? rates[i].half
                  : p.dtype == CUTUNE_DTYPE_TF32 ? rates[i].tf32
                                                 : rates[i].fp32;
        *kind = half                           ? "16-bit tensor-core"
                : p.dtype == CUTUNE_DTYPE_TF32 ? "TF32 tensor-core"
                                               : "FP32 CUDA-core";
        return (double)per * r->sm_count * (r->sm_clock_khz * 1e3) / 1e12;
    }
    return 0;
}
