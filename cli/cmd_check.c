/* cutune check: a variant, checked as far as it can be without a GPU. */
#include "cli.h"
#include "registry.h"
#include "util.h"
#include "variant_check.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cutune check [VARIANT]... [--size S]... [--sample N] [--seed N] [--jobs N]\n"
    "                    [--run --size S... [--run-configs N]]\n"
    "\n"
    "Check variants without a GPU, each as far as it goes (every variant found when none is\n"
    "named):\n"
    "  - its files: the INI, the kernel file and its headers parse and are found, the kernel\n"
    "    is in the source, the op exists, the sizes are sizes of the op (a refused file is\n"
    "    reported with its file, line and a fix);\n"
    "  - its space has configs that pass the constraints under sm_90 (H100) limits;\n"
    "  - its [launch] gives every valid config, at every size, a launch an sm_90 device can\n"
    "    run, and TMA tensor maps that TMA takes (those that cannot are listed: tuning skips\n"
    "    them as skipped_resources);\n"
    "  - its kernel takes the parameters the op passes: as many, and each of the type the\n"
    "    op's signature declares (integer or floating point, size, signedness; a pointer,\n"
    "    and to what), as NVRTC compiles them, then a struct of 128 bytes aligned to 64 (a\n"
    "    CUtensorMap) for each of its TMA tensor maps ([tensor_map.NAME] sections);\n"
    "  - NVRTC compiles its configs for sm_90: every one when there are at most N, else a\n"
    "    seeded sample of N with the first and the last; each failure is listed with its\n"
    "    config and NVRTC's log, as a run records it (ptxas' reason included, such as a\n"
    "    block's shared memory over the limit);\n"
    "  - the first and the last of them once more with ptxas' report (-Xptxas=-v): a config\n"
    "    that keeps local memory (a stack frame: an array indexed at run time; or spilled\n"
    "    registers) is noted, not failed: it runs slower than it could, not wrong;\n"
    "  - with --run, its configs on the CPU: a seeded sample of --run-configs of them at\n"
    "    each --size (the first and the last among them) runs on the CPU emulation\n"
    "    (core/src/emu/kemu.hpp; docs/variants.md, \"Writing a variant\"), each set up,\n"
    "    poisoned and checked by the op's own code as on a GPU; a wrong result, a crash\n"
    "    (a write past a buffer) or a barrier that not every thread reaches is listed.\n"
    "\n"
    "options:\n"
    "  --size S      check the launches at this size (repeatable; default: the variant's\n"
    "                [problems] sizes)\n"
    "  --sample N    compile at most N configs a variant (default 64; 0: every config)\n"
    "  --seed N      the seed of the sample (default 1)\n"
    "  --jobs N      compile threads (default: one per CPU)\n"
    "  --run         also run configs on the CPU emulation at each --size (needs a C++20\n"
    "                compiler, $CXX or c++; a few seconds a config, slow for large sizes:\n"
    "                give small ones, such as 64x64x64 for matmul)\n"
    "  --run-configs N  configs run at each size (default 4; 0: every one)\n"
    "  -h, --help    this text\n"
    "\n"
    "Compiled kernels go to the kernel cache (CUTUNE_CACHE_DIR), so a second check and the\n"
    "tuning run after it compile nothing again. Exit codes: 0 every variant checked is\n"
    "usable, 1 something failed (each failure is listed), 4 a variant named was not found.\n";

int cmd_check(int argc, char **argv)
{
    CutuneCheckOptions o;
    cutune_check_defaults(&o);
    const char **sizes = calloc((size_t)argc + 1, sizeof *sizes);
    if (!sizes)
        return EXIT_FAILURE_;
    CliList size_list = {sizes, &o.nsizes};
    const CliOption opts[] = {
        CLI_CALL("size", cli_append, &size_list),
        CLI_SIZE("sample", &o.sample, 0, SIZE_MAX),
        CLI_UINT64("seed", &o.seed, 0, UINT64_MAX),
        CLI_INT("jobs", &o.threads, 0, 1024),
        CLI_FLAG("run", &o.run),
        CLI_SIZE("run-configs", &o.run_configs, 0, SIZE_MAX),
        CLI_END,
    };
    int rc = cli_parse_options("check", help, argc, argv, opts);
    if (rc >= 0) {
        free(sizes);
        return rc;
    }
    if (o.run && !o.nsizes) {
        free(sizes);
        return cli_usage_error("check",
                               "--run runs the kernels on the CPU, which is slow: give the sizes "
                               "with --size, small ones (64x64x64 for matmul, say)");
    }
    rc = EXIT_OK;
    o.sizes = o.nsizes ? sizes : NULL;
    o.out = stdout;
    char cache[PATH_MAX];
    if (cutune_cache_dir(cache, sizeof cache, NULL) == 0)
        o.cache_dir = cache;

    CutuneRegistry reg;
    CutuneError err = {0};
    if (cutune_registry_load(&reg, &err)) {
        free(sizes);
        return cli_fail("check", &err);
    }
    size_t failed = 0, missing = 0;
    if (optind == argc) { /* every variant, and every file that was refused */
        for (size_t i = 0; i < reg.nrejected; i++)
            printf("%s\n  FAILED\n", reg.rejected[i].text);
        failed += reg.nrejected;
    }
    size_t nnames = optind < argc ? (size_t)(argc - optind) : reg.nvariants;
    for (size_t i = 0; i < nnames && rc == EXIT_OK; i++) {
        const char *name = optind < argc ? argv[optind + i] : reg.variants[i]->name;
        const CutuneVariantDef *var = cutune_registry_find(&reg, name);
        const CutuneRegistryNote *refused = var ? NULL : cutune_registry_refusal(&reg, name);
        if (refused) {
            printf("%s\n  FAILED\n", refused->text);
            failed++;
            continue;
        }
        if (!var) {
            char ops[512];
            cutune_registry_op_names(&reg, ops, sizeof ops);
            fprintf(stderr,
                    "cutune check: no variant '%s' on the space path or the plugin path "
                    "(`cutune list` shows them; ops: %s)\n",
                    name, ops);
            missing++;
            continue;
        }
        CutuneCheckReport r;
        cutune_error_clear(&err);
        if (cutune_variant_check(var, &o, &r, &err) != 0)
            rc = cli_fail("check", &err);
        failed += r.failures > 0;
        fflush(stdout);
    }
    for (size_t i = 0; i < reg.nshadowed; i++)
        fprintf(stderr, "note: %s\n", reg.shadowed[i].text);
    cutune_registry_free(&reg);
    free(sizes);
    if (rc == EXIT_OK && failed)
        fprintf(stderr, "cutune check: %zu variant%s failed (above)\n", failed,
                failed == 1 ? "" : "s");
    return rc != EXIT_OK ? rc : failed ? EXIT_FAILURE_ : missing ? EXIT_NOT_FOUND : EXIT_OK;
}
