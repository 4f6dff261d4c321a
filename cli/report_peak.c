/* The compute peak a matmul's rate is a share of (see report.h). */
#include "report.h"

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

/* The element type a size names ("4096x4096x4096-bf16-nt"; none is fp32). */
static const char *size_dtype(const char *size)
{
    const char *dash = size ? strchr(size, '-') : NULL;
    if (!dash)
        return "fp32";
    if (strncmp(dash + 1, "bf16", 4) == 0 || strncmp(dash + 1, "fp16", 4) == 0)
        return "half";
    if (strncmp(dash + 1, "tf32", 4) == 0)
        return "tf32";
    return strncmp(dash + 1, "fp32", 4) == 0 ? "fp32" : NULL;
}

double report_peak_tflops(const Report *r, const char *size, const char **kind)
{
    *kind = "";
    const char *dt = size_dtype(size);
    if (!dt || !r->op || strcmp(r->op, "matmul") != 0 || r->sm_count <= 0 || r->sm_clock_khz <= 0)
        return 0;
    for (size_t i = 0; i < sizeof rates / sizeof *rates; i++) {
        if (rates[i].cc != 10 * r->cc_major + r->cc_minor)
            continue;
        int per = strcmp(dt, "half") == 0   ? rates[i].half
                  : strcmp(dt, "tf32") == 0 ? rates[i].tf32
                                            : rates[i].fp32;
        *kind = strcmp(dt, "half") == 0   ? "16-bit tensor-core"
                : strcmp(dt, "tf32") == 0 ? "TF32 tensor-core"
                                          : "FP32 CUDA-core";
        return (double)per * r->sm_count * (r->sm_clock_khz * 1e3) / 1e12;
    }
    return 0;
}
