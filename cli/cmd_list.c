/* cutune list: ops, variants, spaces. Needs no GPU. */
#include "cli.h"
#include "registry.h"
#include "space.h"

#include <getopt.h>
#include <limits.h>
#include <string.h>

static const char help[] =
    "usage: cutune list [op]\n"
    "\n"
    "List the ops, their variant plugins and each variant's tuning space: parameters, the\n"
    "size of the full product, the configs that pass the constraints under sm_90 (H100)\n"
    "limits before any problem-size constraint, and the default problem sizes. Plugins that\n"
    "were found but refused are listed with the reason. Needs no GPU.\n";

static void describe_space(const CutunePlugin *p)
{
    char path[PATH_MAX];
    CutuneError err = {0};
    CutuneSpace *sp = NULL;
    if (cutune_space_path(p->v->name, path, sizeof path, &err) ||
        cutune_space_load(path, p->v->dim_names, &sp, &err)) {
        printf("      space: ERROR: %s\n", err.msg);
        return;
    }
    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    CutuneConfigList cl = {0};
    printf("      space: %s\n", path);
    printf("      parameters:");
    for (size_t i = 0; i < sp->nparams; i++) {
        printf(" %s{", sp->params[i].name);
        for (size_t j = 0; j < sp->params[i].nvalues; j++)
            printf(j ? ",%lld" : "%lld", (long long)sp->params[i].values[j]);
        printf("}");
    }
    printf("\n");
    if (cutune_space_enumerate(sp, &lim, NULL, &cl, &err) == 0)
        printf("      configs: %zu valid of %zu\n", cl.nconfigs, cutune_space_cardinality(sp));
    else
        printf("      configs: ERROR: %s\n", err.msg);
    printf("      sizes (%s):", p->v->dim_names);
    for (size_t i = 0; i < sp->nproblems; i++)
        printf(" %s", sp->problems[i]);
    printf("\n");
    cutune_config_list_free(&cl);
    cutune_space_free(sp);
}

int cmd_list(int argc, char **argv)
{
    static const struct option longopts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'h') {
            fputs(help, stdout);
            return EXIT_OK;
        }
        return cli_usage_error("list", "unknown option");
    }
    if (argc - optind > 1)
        return cli_usage_error("list", "expected at most one op");
    const char *only = optind < argc ? argv[optind] : NULL;

    CutuneRegistry reg;
    CutuneError err = {0};
    if (cutune_registry_load(&reg, &err))
        return cli_fail("list", &err);
    int shown = 0;
    for (size_t i = 0; i < reg.count; i++) {
        const char *op = reg.plugins[i].v->op;
        int first = 1;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(reg.plugins[j].v->op, op))
                first = 0;
        if (!first || (only && strcmp(only, op)))
            continue;
        printf("%s\n", op);
        shown++;
        for (size_t j = i; j < reg.count; j++) {
            const CutuneVariant *v = reg.plugins[j].v;
            if (strcmp(v->op, op))
                continue;
            printf("  %-18s v%-4s %s\n", v->name, v->version, v->summary);
            printf("      plugin: %s\n", reg.plugins[j].path);
            describe_space(&reg.plugins[j]);
        }
    }
    if (!shown) {
        if (only)
            fprintf(stderr, "cutune list: no plugin implements op '%s'\n", only);
        else
            fprintf(stderr, "cutune list: no plugins found\n");
        fprintf(stderr, "searched:");
        for (size_t i = 0; i < reg.ndirs; i++)
            fprintf(stderr, " %s", reg.dirs[i]);
        fprintf(stderr, "\n");
    }
    for (size_t i = 0; i < reg.nrejected; i++)
        fprintf(stderr, "refused plugin %s\n", reg.rejected[i].reason);
    cutune_registry_free(&reg);
    return shown ? EXIT_OK : EXIT_NOT_FOUND;
}
