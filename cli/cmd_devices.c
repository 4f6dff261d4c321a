/* cutune devices: the CUDA devices of this machine. */
#include "cli.h"
#include "device.h"

#include <getopt.h>

static const char help[] =
    "usage: cutune devices\n"
    "\n"
    "List the CUDA devices: ordinal (for --device), name, compute capability,\n"
    "multiprocessors, memory and UUID (how the database identifies a device).\n"
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
    printf("%-3s %-28s %-5s %4s %9s  %s\n", "#", "name", "cc", "SMs", "memory", "uuid");
    for (int i = 0; i < n; i++) {
        CutuneDeviceInfo d;
        if (cutune_device_open(i, &d, &err))
            return cli_fail("devices", &err);
        printf("%-3d %-28s %d.%-3d %4d %6.1f GiB  %s\n", i, d.name, d.cc_major, d.cc_minor,
               d.sm_count, (double)d.total_mem / (1024.0 * 1024 * 1024), d.uuid);
    }
    return EXIT_OK;
}
