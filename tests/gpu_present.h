/* GPU tests exit 77 (skipped) where there is no CUDA device: `if (!gpu_present()) return
 * CHECK_SKIP;` says why on stdout. */
#ifndef CUTUNE_TESTS_GPU_PRESENT_H
#define CUTUNE_TESTS_GPU_PRESENT_H

#include <stdio.h>

#include "device.h"

static int gpu_present(void)
{
    int n = 0;
    CutuneError err = {0};
    if (cutune_device_count(&n, &err) == 0)
        return 1;
    printf("skipped: %s\n", err.msg);
    return 0;
}

#endif
