/* cutune devices: the CUDA devices of this machine. */
#include "cli.h"
#include "device.h"

#include <getopt.h>

static const char help[] =
    "usage: cutune devices\n"
    "\n"
    "List the CUDA devices: ordinal (for --device), name, compute capability,\n"
    "multiprocessors, memory, peak SM and memory clocks, and UUID (how the database\n"
    "identifies a device). GPUs whose name, compute capability, SM count and memory\n"
    "are equal are one model: they share their tuning results.\n"
    "Exits 3 when there is no CUDA driver or device.\n";

int cmd_devices(int argc, char **argv)
{
    int rc = cli_parse_options("devices", help, argc, argv, NULL);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return cli_usage_error("devices", "unexpected argument '%s'", argv[optind]);
    CutuneError err = {0};
    int n = 0;
    if (cutune_device_count(&n, &err))
        return cli_fail("devices", &err);
    printf("%-3s %-28s %-5s %4s %9s %13s  %s\n", "#", "name", "cc", "SMs", "memory", "SM/mem MHz",
           "uuid");
    for (int i = 0; i < n; i++) {
        CutuneDeviceInfo d;
        if (cutune_device_open(i, &d, &err))
            return cli_fail("devices", &err);
        int sm_khz, mem_khz;
        cutune_device_clocks(i, &sm_khz, &mem_khz);
        printf("%-3d %-28s %d.%-3d %4d %6.1f GiB %6d/%-6d  %s\n", i, d.name, d.cc_major, d.cc_minor,
               d.sm_count, (double)d.total_mem / (1024.0 * 1024 * 1024), sm_khz / 1000,
               mem_khz / 1000, d.uuid);
    }
    return EXIT_OK;
}
