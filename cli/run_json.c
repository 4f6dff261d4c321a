/* The event lines of `cutune run --json` (see run_json.h). */
#include "run_json.h"

#include "json.h"

#include <errno.h>

static void str(CutuneJson *j, const char *k, const char *v)
{
    cutune_json_key(j, k);
    cutune_json_string(j, v);
}

static void num(CutuneJson *j, const char *k, double v, int positive_only)
{
    cutune_json_key(j, k);
    if (positive_only && !(v > 0))
        cutune_json_null(j);
    else
        cutune_json_number(j, v);
}

static void integer(CutuneJson *j, const char *k, int64_t v)
{
    cutune_json_key(j, k);
    cutune_json_int(j, v);
}

static void boolean(CutuneJson *j, const char *k, int v)
{
    cutune_json_key(j, k);
    cutune_json_bool(j, v);
}

/* errno is cleared when a line begins, so that EPIPE here is this line's. */
static void line_end(RunJson *rj, CutuneJson *j)
{
    cutune_json_end_object(j);
    if (cutune_json_finish(j) == 0)
        return;
    rj->failed = 1;
    if (errno == EPIPE && !rj->closed) {
        rj->closed = 1;
        if (rj->stop && *rj->stop == 0)
            *rj->stop = 1;
    }
}

void run_json_event(const CutuneTuneEvent *e, void *user)
{
    RunJson *rj = user;
    CutuneJson j;
    errno = 0;
    cutune_json_init(&j, rj->f, 0);
    cutune_json_begin_object(&j);
    static const char *const names[] = {"trial", "search", "size"};
    str(&j, "event", names[e->type]);
    num(&j, "elapsed_s", e->elapsed_s, 0);
    str(&j, "op", e->op);
    str(&j, "size", e->size);
    str(&j, "variant", e->variant);
    switch (e->type) {
    case CUTUNE_EVENT_TRIAL:
        str(&j, "phase", e->phase);
        str(&j, "config", e->config);
        str(&j, "status", e->status);
        num(&j, "median_ms", e->median_ms, 1);
        num(&j, "gflops", e->gflops, 1);
        num(&j, "gbps", e->gbps, 1);
        boolean(&j, "cut_short", e->cut_short);
        num(&j, "compile_ms", e->compile_ms, 0);
        num(&j, "measure_ms", e->measure_ms, 0);
        integer(&j, "trial_id", e->trial_id);
        integer(&j, "device", e->device);
        str(&j, "message", e->message);
        break;
    case CUTUNE_EVENT_SEARCH:
        str(&j, "strategy", e->strategy);
        str(&j, "ended", e->message);
        integer(&j, "measured", (int64_t)e->evaluated);
        integer(&j, "valid", (int64_t)e->nvalid);
        num(&j, "best_ms", e->median_ms, 1);
        break;
    case CUTUNE_EVENT_SIZE:
        str(&j, "config", e->config);
        num(&j, "best_ms", e->median_ms, 1);
        num(&j, "gflops", e->gflops, 1);
        num(&j, "gbps", e->gbps, 1);
        str(&j, "yardstick", e->yardstick && *e->yardstick ? e->yardstick : NULL);
        num(&j, "yardstick_ms", e->yardstick_ms, 1);
        num(&j, "vs_yardstick", e->vs_yardstick, 1);
        num(&j, "est_eval_s", e->est_eval_s, 1);
        num(&j, "est_compile_s", e->est_compile_s, 1);
        break;
    }
    num(&j, "budget_s", e->budget_s, 1);
    line_end(rj, &j);
}

void run_json_summary(RunJson *rj, const CutuneTuneSummary *s)
{
    CutuneJson j;
    errno = 0;
    cutune_json_init(&j, rj->f, 0);
    cutune_json_begin_object(&j);
    str(&j, "event", "summary");
    integer(&j, "run_id", s->run_id);
    str(&j, "device", s->device_name);
    str(&j, "database", s->db_path);
    num(&j, "wall_s", s->wall_s, 0);
    num(&j, "budget_s", s->budget_s, 1);
    boolean(&j, "interrupted", s->interrupted);
    integer(&j, "ngpus", s->ngpus);
    integer(&j, "gpus_lost", (int64_t)s->lanes_failed);
    integer(&j, "compile_threads", s->compile_threads);
    integer(&j, "compiled_ahead", (int64_t)s->ahead_compiled);
    num(&j, "compile_ahead_cpu_s", s->ahead_s, 0);
    num(&j, "start_s", s->start_s, 0);
    cutune_json_key(&j, "sizes");
    cutune_json_begin_array(&j);
    for (size_t i = 0; i < s->nsizes; i++) {
        const CutuneTuneSize *z = &s->sizes[i];
        cutune_json_begin_object(&j);
        str(&j, "op", z->op);
        str(&j, "size", z->size);
        str(&j, "variant", z->variant[0] ? z->variant : NULL);
        str(&j, "config", z->config[0] ? z->config : NULL);
        num(&j, "best_ms", z->best_ms, 1);
        num(&j, "retimed_ms", z->retimed_ms, 1);
        str(&j, "yardstick", z->yardstick[0] ? z->yardstick : NULL);
        num(&j, "yardstick_ms", z->yardstick_ms, 1);
        num(&j, "vs_yardstick", cutune_tune_size_ratio(z), 1);
        num(&j, "done_s", z->done_s, 1);
        boolean(&j, "tuned_before", z->tuned_before);
        cutune_json_end_object(&j);
    }
    cutune_json_end_array(&j);
    cutune_json_key(&j, "gpus"); /* where each GPU's wall time went (CutuneTuneGpu) */
    cutune_json_begin_array(&j);
    for (size_t i = 0; i < s->ngpus_rows; i++) {
        const CutuneTuneGpu *g = &s->gpus[i];
        cutune_json_begin_object(&j);
        integer(&j, "device", g->device);
        str(&j, "name", g->name);
        integer(&j, "sizes", (int64_t)g->sizes);
        num(&j, "measure_s", g->measure_s, 0);
        num(&j, "retime_s", g->retime_s, 0);
        num(&j, "compile_wait_s", g->compile_wait_s, 0);
        num(&j, "setup_s", g->setup_s, 0);
        num(&j, "other_s", g->other_s, 0);
        num(&j, "idle_s", g->idle_s, 0);
        num(&j, "compile_cpu_s", g->compile_s, 0);
        integer(&j, "trials", (int64_t)g->trials);
        integer(&j, "crashed", (int64_t)g->crashed);
        boolean(&j, "lost", g->lost);
        cutune_json_end_object(&j);
    }
    cutune_json_end_array(&j);
    line_end(rj, &j);
}
