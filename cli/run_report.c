/* The summary of a run (see run_report.h). */
#include "run_report.h"

#include <string.h>

static void clock_text(double s, char *buf, size_t len)
{
    long v = s > 0 && s < 1e7 ? (long)(s + 0.5) : 0;
    snprintf(buf, len, "%ld:%02ld", v / 60, v % 60);
}

static void print_sizes(FILE *f, const CutuneTuneSummary *s)
{
    fprintf(f, "%-23s %-18s %10s %12s %12s %9s %8s  %s\n", "size", "best variant", "ms", "rate",
            "yardstick ms", "vs it", "at", "best config");
    for (size_t i = 0; i < s->nsizes; i++) {
        const CutuneTuneSize *z = &s->sizes[i];
        char ms[32] = "-", rate[32] = "-", ys[32] = "-", ratio[32] = "-", at[32] = "-";
        if (z->best_ms > 0) {
            snprintf(ms, sizeof ms, "%.4f", z->best_ms);
            /* FLOP/s for work that does several operations a byte, else bandwidth */
            if (z->gflops > 0 && !(z->gbps > 0 && z->gflops < 4 * z->gbps))
                snprintf(rate, sizeof rate, "%.2f TFLOP/s", z->gflops / 1e3);
            else if (z->gbps > 0)
                snprintf(rate, sizeof rate, "%.1f GB/s", z->gbps);
        }
        if (z->yardstick_ms > 0) {
            snprintf(ys, sizeof ys, "%.4f", z->yardstick_ms);
            if (z->best_ms > 0)
                snprintf(ratio, sizeof ratio, "%.3fx", cutune_tune_size_ratio(z));
        }
        if (z->done_s > 0)
            clock_text(z->done_s, at, sizeof at);
        fprintf(f, "%-23s %-18s %10s %12s %12s %9s %8s  %s\n", z->size,
                z->variant[0] ? z->variant : "-", ms, rate, ys, ratio, at,
                z->config[0] ? z->config : "-");
        if (z->retimed_ms > 0 && z->tuned_before)
            fprintf(f, "%-23s   re-timed now: %.4f ms (recorded %.4f ms)\n", "", z->retimed_ms,
                    z->best_ms);
    }
    /* the yardsticks by name, each once: cuBLAS SGEMM for fp32, cuBLASLt for the others */
    char names[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < s->nsizes && used < sizeof names; i++) {
        const char *y = s->sizes[i].yardstick;
        int seen = !*y;
        for (size_t k = 0; k < i && !seen; k++)
            seen = !strcmp(s->sizes[k].yardstick, y);
        if (!seen) {
            int n = snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", y);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    if (*names)
        fprintf(f,
                "(yardstick: %s on the same inputs in the same worker; 'vs it': its time "
                "over the best's, both timed again back to back at the size's end, > 1 "
                "meaning faster than it; 'at': when the size was done)\n",
                names);
    else
        fprintf(f, "(no vendor yardstick was measured for this op here; 'at': when the size "
                   "was done)\n");
}

static void print_rows(FILE *f, const CutuneTuneSummary *s)
{
    fprintf(f, "\n%-18s %-23s %-12s %8s %7s %7s %5s %6s %6s %9s %8s\n", "variant", "size",
            "searched by", "measured", "known", "valid", "ok", "wrong", "other", "best ms",
            "ended");
    for (size_t i = 0; i < s->nrows; i++) {
        const CutuneTuneRow *r = &s->rows[i];
        size_t other = r->evaluated - r->count[CUTUNE_STATUS_OK] -
                       r->count[CUTUNE_STATUS_WRONG_RESULT];
        char best[32] = "-";
        if (r->best_ms > 0)
            snprintf(best, sizeof best, "%.4f", r->best_ms);
        fprintf(f, "%-18s %-23s %-12s %8zu %7zu %7zu %5zu %6zu %6zu %9s %8s\n", r->variant, r->size,
                r->strategy[0] ? r->strategy : "-", r->evaluated, r->known, r->nvalid,
                r->count[CUTUNE_STATUS_OK], r->count[CUTUNE_STATUS_WRONG_RESULT], other, best,
                r->ended[0] ? r->ended : "-");
    }
    fprintf(f, "(measured: in this run; known: held by the database from earlier runs and not "
               "measured again; 'other': compile or launch errors, skipped for resources, "
               "crashed, timeout)\n");
}

/* Where each GPU's wall time went, for a run on several: busy is measuring, re-timing,
 * waiting for its compiles, setting problems up and the rest of its work; idle, starting up
 * and waiting at the end for the sizes other GPUs were still tuning. */
static void print_gpus(FILE *f, const CutuneTuneSummary *s)
{
    fprintf(f, "\n%-4s %-24s %6s %7s %7s %8s %7s %7s %7s %6s %9s %6s %7s\n", "GPU", "name", "sizes",
            "measure", "re-time", "compile", "setup", "other", "idle", "busy", "NVRTC cpu",
            "trials", "crashed");
    for (size_t i = 0; i < s->ngpus_rows; i++) {
        const CutuneTuneGpu *g = &s->gpus[i];
        double busy = g->measure_s + g->retime_s + g->compile_wait_s + g->setup_s + g->other_s;
        double all = busy + g->idle_s;
        fprintf(f,
                "%-4d %-24.24s %6zu %6.1fs %6.1fs %7.1fs %6.1fs %6.1fs %6.1fs %5.0f%% %8.1fs %6zu "
                "%7zu%s\n",
                g->device, g->name, g->sizes, g->measure_s, g->retime_s, g->compile_wait_s,
                g->setup_s, g->other_s, g->idle_s, all > 0 ? 100 * busy / all : 0, g->compile_s,
                g->trials, g->crashed, g->lost ? "  (stopped before the end)" : "");
    }
    fprintf(f,
            "(seconds of the run's wall time: measure, in the worker; compile, waiting for the "
            "compiles of its configs; setup, making a size's inputs and reference, its ragged "
            "check's too; idle: the %.1f s before the GPUs began (workers started, the plan made) "
            "among it; busy: all but idle; NVRTC cpu: compile seconds of its configs summed "
            "over the %d compile threads that the GPUs share)\n",
            s->start_s, s->compile_threads);
}

void run_report_print(FILE *f, const CutuneTuneSummary *s)
{
    char wall[32], budget[32];
    clock_text(s->wall_s, wall, sizeof wall);
    clock_text(s->budget_s, budget, sizeof budget);
    fprintf(f, "\ndevice: %s   run: %lld   database: %s\nwall time %s%s%s\n\n", s->device_name,
            (long long)s->run_id, s->db_path, wall, s->budget_s > 0 ? " of a budget of " : "",
            s->budget_s > 0 ? budget : "");
    print_sizes(f, s);
    print_rows(f, s);
    if (s->ngpus_rows > 1)
        print_gpus(f, s);
    if (s->ahead_compiled)
        fprintf(f,
                "compiled ahead on idle compile threads: %zu configs of the warm starts of the "
                "sizes next in line (%.1f s of NVRTC cpu)\n",
                s->ahead_compiled, s->ahead_s);
    size_t tuned = 0;
    for (size_t i = 0; i < s->nsizes; i++)
        tuned += s->sizes[i].tuned_before;
    if (tuned)
        fprintf(f,
                "%zu of %zu sizes were tuned by an earlier run: their best was only re-timed "
                "(`--retune` searches them again)\n",
                tuned, s->nsizes);
}
