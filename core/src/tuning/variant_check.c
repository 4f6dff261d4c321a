/* Checking a variant without a GPU (variant_check.h). */
#include "variant_check.h"
#include "variant_run.h"
#include "compile.h"
#include "kernel_params.h"
#include "pool.h"
#include "space_limits.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHOWN_MAX 3 /* skipped launches and failed compiles listed in full */

/* The op's signature for an element type: each word T (an op whose elements take the
 * problem's type, cutune/op.h) becomes the C type of its storage, float for fp32 and tf32,
 * unsigned short for the 16-bit types (a kernel may cast the pointer to __half or
 * __nv_bfloat16). A signature without T is the same for every type. */
static void signature_of_kind(const char *sig, const CutuneProblem *kind, char *out, size_t len)
{
    const char *t = cutune_dtype_bytes(kind->dtype) == 2 ? "unsigned short" : "float";
    size_t n = 0;
    for (const char *s = sig; *s && n + 16 < len; s++) {
        int word = *s == 'T' &&
                   (s == sig ||
                    !(s[-1] == '_' || (s[-1] >= 'a' && s[-1] <= 'z') ||
                      (s[-1] >= 'A' && s[-1] <= 'Z') || (s[-1] >= '0' && s[-1] <= '9'))) &&
                   !(s[1] == '_' || (s[1] >= 'a' && s[1] <= 'z') || (s[1] >= 'A' && s[1] <= 'Z') ||
                     (s[1] >= '0' && s[1] <= '9'));
        if (word)
            n += (size_t)snprintf(out + n, len - n, "%s", t);
        else
            out[n++] = *s;
    }
    out[n < len ? n : len - 1] = '\0';
}

/* The architecture a check compiles for: the one asked, or the variant's own arch-specific
 * target (sm_90a) whatever was asked, since it compiles for nothing else. */
static int check_arch(const CutuneVariantDef *v, int arch)
{
    return v->target ? v->target | CUTUNE_ARCH_SPECIFIC : arch;
}

#define LOG_LINES_MAX 24 /* lines of one config's compiler log */

/* A failed compile as the run records it (compile.c: "NVRTC could not compile K: CODE" and
 * NVRTC's log on the lines after it), indented under its config: the log is where the
 * reason is, a source error's file(line) or ptxas' ("uses too much shared data (0x20000
 * bytes, 0xc000 max)"), which NVRTC's code alone does not say. A log the same as the one
 * printed before it is not printed again. */
static void say_compile_failure(const CutuneCheckOptions *o, const char *config, const char *msg,
                                const char *prev_log)
{
    const char *nl = strchr(msg, '\n'), *log = nl ? nl + 1 : "";
    const char *head = strstr(msg, ": ");
    int head_len = nl ? (int)(nl - msg) : (int)strlen(msg);
    if (head && head < msg + head_len) { /* "NVRTC could not compile K: CODE" -> "CODE" */
        head_len -= (int)(head + 2 - msg);
        head += 2;
    } else {
        head = msg;
    }
    cutune_check_say(o, "  FAIL config %s does not compile: %.*s\n", config, head_len, head);
    if (prev_log && !strcmp(prev_log, log) && *log) {
        cutune_check_say(o, "      (the same compiler log as above)\n");
        return;
    }
    int lines = 0;
    for (const char *p = log; *p && lines < LOG_LINES_MAX; lines++) {
        const char *end = strchr(p, '\n');
        int len = end ? (int)(end - p) : (int)strlen(p);
        if (len > 0)
            cutune_check_say(o, "      %.*s\n", len, p);
        p = end ? end + 1 : p + len;
        if (!end || !*p)
            return;
    }
    if (*log && lines == LOG_LINES_MAX)
        cutune_check_say(
            o, "      ... (the log goes on: `cutune show` prints a run's whole message)\n");
}

/* The constraint that rejected the most points, for a space with no valid config. */
static void worst_constraint(const CutuneSpace *sp, const CutuneConfigList *cl, char *buf,
                             size_t len)
{
    size_t worst = 0;
    for (size_t c = 1; c < sp->nconstraints; c++)
        if (cl->rejected_by[c] > cl->rejected_by[worst])
            worst = c;
    if (sp->nconstraints == 0)
        snprintf(buf, len, "(no constraints: is a parameter without values?)");
    else
        snprintf(buf, len, "%s:%d: '%s' rejects %zu points", sp->path, sp->constraints[worst].line,
                 sp->constraints[worst].name, cl->rejected_by[worst]);
}

/* Every valid config of every size gets a launch under sm_90 limits. */
static int check_launches(const CutuneVariantDef *v, const CutuneSpace *sp,
                          const CutuneCheckOptions *o, const char *const *sizes, size_t nsizes,
                          CutuneCheckReport *r, CutuneError *err)
{
    CutuneCheckGeometry cg;
    int rc = cutune_check_geometry(v, sp, &cg, err);
    if (rc) {
        cutune_check_say(o, "  FAIL %s\n", err->msg);
        r->failures++;
        return rc == CUTUNE_ERR_NOMEM ? rc : 0;
    }
    size_t shown = 0;
    for (size_t k = 0; k < nsizes && rc == 0; k++) {
        CutuneProblem p;
        CutuneError perr = {0};
        if (cutune_variant_problem(v, sizes[k], &p, &perr) != 0 || (size_t)p.ndims != sp->ndims) {
            cutune_check_say(o, "  FAIL size %s: %s\n", sizes[k],
                             perr.msg[0] ? perr.msg : "dimensions");
            r->failures++;
            continue;
        }
        CutuneConfigList cl = {0};
        if (cutune_space_enumerate(sp, &cg.lim, p.dim, &cl, &perr) != 0) {
            cutune_check_say(o, "  FAIL size %s: %s\n", sizes[k], perr.msg);
            r->failures++;
            continue;
        }
        size_t ran = 0;
        for (size_t i = 0; i < cl.nconfigs; i++) {
            CutuneLaunch l;
            char why[512];
            int grc = cutune_geometry_eval(cg.g, cl.values + i * cl.nparams, &p, &cg.lim, &l, NULL,
                                           why, sizeof why);
            if (grc == 0) {
                ran++;
                continue;
            }
            if (grc != CUTUNE_ERR_RESOURCES) {
                rc = cutune_error(err, grc, "%s", why);
                break;
            }
            r->skipped++;
            if (shown++ < SHOWN_MAX) {
                char text[512];
                cutune_config_format(sp, cl.values + i * cl.nparams, text, sizeof text);
                cutune_check_say(
                    o, "  note: %s at %s cannot launch on sm_90 (skipped when tuned): %s\n", text,
                    sizes[k], why);
            }
        }
        r->launches += ran;
        if (ran == 0 && rc == 0) {
            cutune_check_say(o,
                             "  FAIL size %s: none of its %zu valid configs can launch on sm_90\n",
                             sizes[k], cl.nconfigs);
            r->failures++;
        }
        cutune_config_list_free(&cl);
    }
    cutune_check_geometry_free(&cg);
    return rc;
}

/* The local memory of a few configs of the sample (its first and last, which
 * cutune_check_pick always holds), as ptxas reports it: a stack frame is an array the kernel
 * indexes at run time, or a variable whose address it takes; spills are registers it ran out
 * of. Either makes every access a trip to memory, so a variant may run slower than it could,
 * never wrong: a note, not a failure. matmul_wgmma's epilogue kept 16 bytes on the stack for
 * every store of the tile until 5c86003, 2.5-10% of its time on an H200 (bench/RESULTS.md,
 * "The wgmma epilogue's local memory"). Each is one more compile, uncached (the report comes
 * only from a compile). */
#define LOCAL_CHECKED 2
static void check_local_memory(const CutuneVariantDef *v, const CutuneSpace *sp,
                               const CutuneConfigList *cl, const CutuneCheckOptions *o,
                               CutuneCheckReport *r)
{
    CutuneProblem kind;
    cutune_variant_first_kind(v, &kind);
    size_t at[LOCAL_CHECKED] = {0, cl->nconfigs - 1};
    size_t n = cl->nconfigs < LOCAL_CHECKED ? cl->nconfigs : LOCAL_CHECKED;
    for (size_t k = 0; k < n; k++) {
        CutuneDefines d;
        cutune_defines_of(sp, cl->values + at[k] * cl->nparams, &d);
        cutune_defines_kind(&d, &kind);
        int stack = -1, spill = -1;
        CutuneError e = {0};
        if (cutune_nvrtc_local_memory(v->source, v->kernel_name, d.ptr, d.n, check_arch(v, o->arch),
                                      &stack, &spill, &e) != 0 ||
            stack < 0)
            continue; /* its compile failed above, and was said; or no report */
        r->local_checked++;
        if (stack == 0 && spill <= 0)
            continue;
        r->local_memory++;
        char text[512];
        cutune_config_format(sp, cl->values + at[k] * cl->nparams, text, sizeof text);
        cutune_check_say(
            o,
            "  note: config %s keeps a stack frame of %d bytes, with %d bytes of spill stores: "
            "an array indexed at run time, or too few registers; slower, not "
            "wrong (ptxas -v)\n",
            text, stack, spill > 0 ? spill : 0);
    }
    if (r->local_checked)
        cutune_check_say(o, "  local memory (ptxas): %zu of %zu configs checked keep none\n",
                         r->local_checked - r->local_memory, r->local_checked);
}

static int check_compiles(const CutuneVariantDef *v, const CutuneSpace *sp,
                          const CutuneConfigList *cl, const CutuneCheckOptions *o,
                          CutuneCheckReport *r, CutuneError *err)
{
    size_t *idx = malloc((cl->nconfigs ? cl->nconfigs : 1) * sizeof *idx);
    size_t n = idx ? cutune_check_pick(cl->nconfigs, o->sample, o->seed, idx) : 0;
    CutuneCompileJob *jobs = calloc(n ? n : 1, sizeof *jobs);
    CutunePool *pool = NULL;
    int rc = 0;
    if (!idx || !jobs || cutune_pool_create(o->threads, &pool) != 0) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* the sample in the variant's first kind, and every other config with each further
     * epilogue it lists (the kernel compiles its bias path under CUTUNE_EPILOGUE_BIAS) */
    CutuneProblem kinds[CUTUNE_EPILOGUE_COUNT];
    int nkinds = 0;
    cutune_variant_first_kind(v, &kinds[nkinds++]);
    for (int e = 0; e < CUTUNE_EPILOGUE_COUNT; e++) {
        CutuneProblem k = kinds[0];
        k.epilogue = e;
        char why[256];
        if (e != kinds[0].epilogue && cutune_variant_takes(v, &k) &&
            cutune_op_takes_kind(v->op->op, &k, why, sizeof why))
            kinds[nkinds++] = k;
    }
    for (size_t j = 0; j < n; j++) {
        cutune_compile_job_init(&jobs[j], v->source, v->kernel_name, sp,
                                cl->values + idx[j] * cl->nparams, &kinds[j % (size_t)nkinds],
                                check_arch(v, o->arch), o->cache_dir, idx[j]);
        cutune_pool_submit(pool, &jobs[j].job);
    }
    size_t shown = 0;
    char *prev_log = NULL;
    for (size_t j = 0; j < n; j++) {
        cutune_pool_wait(pool, &jobs[j].job);
        if (jobs[j].rc == 0)
            r->compiled++;
        else
            r->compile_failed++;
        if (jobs[j].rc != 0 && shown++ < SHOWN_MAX) {
            char text[512];
            const char *msg = jobs[j].err.msg, *nl = strchr(msg, '\n');
            cutune_config_format(sp, cl->values + jobs[j].index * cl->nparams, text, sizeof text);
            const CutuneProblem *k = &kinds[j % (size_t)nkinds];
            if (k->epilogue != CUTUNE_EPILOGUE_NONE) {
                size_t used = strlen(text);
                snprintf(text + used, sizeof text - used, " (epilogue %s)",
                         cutune_epilogue_name(k->epilogue));
            }
            say_compile_failure(o, text, msg, prev_log);
            free(prev_log);
            prev_log = strdup(nl ? nl + 1 : "");
        }
        cutune_compile_job_clear(&jobs[j]); /* its cubin: the cache keeps it */
    }
    free(prev_log);
    cutune_check_say(o, "  compiled %zu of %zu configs for sm_%d%s%s: %zu ok, %zu failed\n", n,
                     cl->nconfigs, o->arch,
                     n < cl->nconfigs ? " (a seeded sample with the first and the last; --sample 0 "
                                        "compiles every one)"
                                      : "",
                     nkinds > 1 ? ", every other one with the bias epilogue" : "", r->compiled,
                     r->compile_failed);
    r->failures += r->compile_failed;
out:
    cutune_pool_destroy(&pool);
    free(jobs);
    free(idx);
    return rc;
}

/* The kernel's parameters against the op's arguments: as many as it passes, each of the
 * type the op's signature declares (kernel_params.c), then one CUtensorMap for each of the
 * variant's TMA tensor maps. */
static void check_params(const CutuneVariantDef *v, const CutuneSpace *sp,
                         const CutuneConfigList *cl, const CutuneCheckOptions *o,
                         CutuneCheckReport *r)
{
    CutuneDefines d;
    CutuneProblem kind;
    cutune_variant_first_kind(v, &kind);
    cutune_defines_of(sp, cl->values, &d);
    cutune_defines_kind(&d, &kind);
    CutuneError e = {0};
    const CutuneOp *op = v->op->op;
    if (cutune_nvrtc_kernel_params(v->source, v->kernel_name, d.ptr, d.n, check_arch(v, o->arch),
                                   &r->kernel_params, &e) != 0) {
        if (e.code != CUTUNE_ERR_COMPILE) { /* a compile error is listed with its config */
            cutune_check_say(o, "  FAIL %s\n", e.msg);
            r->failures++;
        }
        return;
    }
    int maps = cutune_tensor_maps_count(sp);
    if (op->nargs > 0 && r->kernel_params != op->nargs + maps) {
        char and_maps[96] = "";
        if (maps)
            snprintf(and_maps, sizeof and_maps, ", then %d TMA tensor map%s", maps,
                     maps == 1 ? "" : "s");
        cutune_check_say(o, "  FAIL kernel %s takes %d parameters, but op %s passes %d%s: (%s)\n",
                         v->kernel_name, r->kernel_params, op->name, op->nargs, and_maps,
                         op->signature);
        r->failures++;
        return;
    }
    CutuneParamTypes kt, ot;
    char why[512], sig[1024];
    int bad = -1;
    signature_of_kind(op->signature, &kind, sig, sizeof sig);
    if (cutune_signature_param_types(sig, o->arch, &ot, &e) != 0) {
        cutune_check_say(
            o,
            "  note: the types of op %s's signature are unknown (%s): only the number of "
            "parameters was checked\n",
            op->name, e.msg);
    } else if (cutune_kernel_param_types(v->source, v->kernel_name, d.ptr, d.n,
                                         check_arch(v, o->arch), &kt, &e) != 0) {
        cutune_check_say(
            o,
            "  note: the types of kernel %s's parameters are unknown (%s): only their number "
            "was checked\n",
            v->kernel_name, e.msg);
    } else if ((bad = cutune_param_mismatch(&kt, &ot, sig, why, sizeof why)) >= 0 ||
               (bad = cutune_param_not_tensor_map(&kt, ot.n, maps, why, sizeof why)) >= 0) {
        cutune_check_say(o, "  FAIL kernel %s: %s (%s)\n", v->kernel_name, why, sig);
        r->failures++;
        return;
    }
    char then[64] = "";
    if (maps)
        snprintf(then, sizeof then, ", then %d TMA tensor map%s", maps, maps == 1 ? "" : "s");
    cutune_check_say(o, "  kernel %s takes %d parameters, as op %s passes them%s%s\n",
                     v->kernel_name, r->kernel_params, op->name,
                     bad < 0 && !e.msg[0] ? ", each of the op's type" : "", then);
}

int cutune_variant_check(const CutuneVariantDef *v, const CutuneCheckOptions *o,
                         CutuneCheckReport *r, CutuneError *err)
{
    memset(r, 0, sizeof *r);
    r->kernel_params = -1;
    CutuneSpace *sp = NULL;
    CutuneConfigList cl = {0};
    CutuneError e = {0};
    cutune_check_say(o, "%s (%s), op %s, version %s\n", v->name, v->path, v->op_name, v->version);
    if (cutune_variant_load_space(v, &sp, &e) != 0) {
        cutune_check_say(o, "  FAIL %s\n", e.msg);
        r->failures++;
        return 0;
    }
    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    int rc = cutune_space_enumerate(sp, &lim, NULL, &cl, &e);
    if (rc) {
        cutune_check_say(o, "  FAIL %s\n", e.msg);
        r->failures++;
        rc = 0;
        goto out;
    }
    r->nvalid = cl.nconfigs;
    cutune_check_say(o, "  %zu valid configs of %zu under sm_90 limits\n", cl.nconfigs,
                     cutune_space_cardinality(sp));
    if (cl.nconfigs == 0) {
        char why[600];
        worst_constraint(sp, &cl, why, sizeof why);
        cutune_check_say(o, "  FAIL no config passes the constraints; %s\n", why);
        r->failures++;
        goto out;
    }
    const char *const *sizes = o->sizes;
    size_t nsizes = o->nsizes;
    if (!sizes || !nsizes) {
        sizes = (const char *const *)sp->problems;
        nsizes = sp->nproblems;
    }
    if (nsizes == 0) {
        cutune_check_say(o,
                         "  FAIL %s has no [problems] default sizes, and none was given (--size)\n",
                         sp->path);
        r->failures++;
    }
    if ((rc = check_launches(v, sp, o, sizes, nsizes, r, err)))
        goto out;
    cutune_check_say(
        o, "  launches: %zu (config, size) pairs at %zu size%s, %zu of them cannot run on sm_90\n",
        r->launches + r->skipped, nsizes, nsizes == 1 ? "" : "s", r->skipped);
    if ((r->library = cutune_variant_library(v) != NULL)) {
        cutune_check_say(
            o, "  a library variant: its configs are calls into a library, made ready when "
               "they run (nothing to compile)\n");
        goto out;
    }
    check_params(v, sp, &cl, o, r);
    rc = check_compiles(v, sp, &cl, o, r, err);
    if (rc == 0 && r->compiled > 0)
        check_local_memory(v, sp, &cl, o, r);
    if (rc == 0 && o->run)
        rc = cutune_variant_run(v, sp, o, sizes, nsizes, r, err);
out:
    cutune_check_say(o, "  %s\n", r->failures ? "FAILED" : "ok");
    cutune_config_list_free(&cl);
    cutune_space_free(sp);
    return rc;
}
