/* GPU tests exit 77 (skipped) where there is no CUDA device: `if (!gpu_present()) return
 * CHECK_SKIP;` says why on stdout. */
#ifndef CUTUNE_TESTS_GPU_PRESENT_H
#define CUTUNE_TESTS_GPU_PRESENT_H

#include <stdio.h>

#include "check.h"
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

/* Device 0 opened into *dev and named on stdout (a CHECK that it opens); 0 where there is
 * no CUDA device, and the test is skipped. */
static inline int gpu_device(CutuneDeviceInfo *dev)
{
    CutuneError err = {0};
    if (!gpu_present())
        return 0;
    CHECK_MSG(cutune_device_open(0, dev, &err) == 0, "%s", err.msg);
    printf("device 0: %s (%s)\n", dev->name, dev->uuid);
    return 1;
}

#endif
