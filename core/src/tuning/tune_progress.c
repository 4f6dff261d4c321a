/* What a run shows while it goes: one progress line on a terminal (the run's clock against
 * its budget, the sizes done, what is being measured, each size's best so far against its
 * yardstick), notes as lines of their own, and events for a caller (`run --json`). */
#include "tune_int.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static void clock_text(double s, char *buf, size_t len)
{
    long v = s > 0 && s < 1e7 ? (long)(s + 0.5) : 0;
    if (v >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", v / 3600, v / 60 % 60, v % 60);
    else
        snprintf(buf, len, "%ld:%02ld", v / 60, v % 60);
}

static size_t width_of(FILE *f)
{
    struct winsize ws;
    if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
        return ws.ws_col - 1;
    return 119;
}

double cutune_tune_size_ratio(const CutuneTuneSize *z)
{
    double best = z->retimed_ms > 0 ? z->retimed_ms : z->best_ms;
    return z->yardstick_ms > 0 && best > 0 ? z->yardstick_ms / best : 0;
}

/* "1000x1000x1000 1.02x" against the yardstick, else the best time. */
static void size_brief(const TuneSize *ts, char *buf, size_t len)
{
    const CutuneTuneSize *o = ts->out;
    if (!(o->best_ms > 0))
        snprintf(buf, len, "%s -", ts->size);
    else if (o->yardstick_ms > 0)
        snprintf(buf, len, "%s %.2fx", ts->size, cutune_tune_size_ratio(o));
    else
        snprintf(buf, len, "%s %.4gms", ts->size, o->best_ms);
}

/* The line, with r->mu held. */
static void draw(TuneRun *r)
{
    FILE *f = r->o->log;
    double now = cutune_now(), el = now - r->started;
    char a[48], b[48], line[1024];
    clock_text(el, a, sizeof a);
    size_t done = 0;
    for (size_t i = 0; i < r->nsizes; i++)
        done += r->sizes[i].state == TUNE_SIZE_DONE;
    int n;
    if (r->deadline > 0) {
        clock_text(r->deadline - r->started, b, sizeof b);
        char left[48];
        clock_text(r->deadline > now ? r->deadline - now : 0, left, sizeof left);
        n = snprintf(line, sizeof line, "[%s/%s, %s left] sizes %zu/%zu |", a, b, left, done,
                     r->nsizes);
    } else {
        n = snprintf(line, sizeof line, "[%s] sizes %zu/%zu |", a, done, r->nsizes);
    }
    for (int i = 0; i < r->nlanes && n > 0 && (size_t)n < sizeof line; i++)
        if (r->lanes[i].doing[0])
            n += r->nlanes > 1
                     ? snprintf(line + n, sizeof line - (size_t)n, " GPU%d %s |",
                                r->lanes[i].device, r->lanes[i].doing)
                     : snprintf(line + n, sizeof line - (size_t)n, " %s |", r->lanes[i].doing);
    for (size_t i = 0; i < r->nsizes && n > 0 && (size_t)n < sizeof line; i++) {
        if (r->sizes[i].state == TUNE_SIZE_WAITING)
            continue;
        char s[96];
        size_brief(&r->sizes[i], s, sizeof s);
        n += snprintf(line + n, sizeof line - (size_t)n, " %s", s);
    }
    size_t w = width_of(f);
    if (strlen(line) > w)
        line[w] = '\0';
    fprintf(f, "\r%s\033[K", line);
    fflush(f);
    r->progress_drawn = 1;
}

void tune_progress(TuneRun *r)
{
    if (!r->o->progress || !r->o->log)
        return;
    pthread_mutex_lock(&r->mu);
    double now = cutune_now();
    if (now - r->last_draw >= 0.1) { /* at most ten times a second */
        r->last_draw = now;
        draw(r);
    }
    pthread_mutex_unlock(&r->mu);
}

void tune_progress_clear(TuneRun *r)
{
    pthread_mutex_lock(&r->mu);
    if (r->progress_drawn && r->o->log) {
        fprintf(r->o->log, "\r\033[K");
        fflush(r->o->log);
        r->progress_drawn = 0;
    }
    pthread_mutex_unlock(&r->mu);
}

void tune_note(TuneRun *r, const char *fmt, ...)
{
    FILE *f = r->o->log;
    if (!f)
        return;
    pthread_mutex_lock(&r->mu);
    if (r->progress_drawn)
        fputs("\r\033[K", f);
    fputs("  ", f);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    if (r->progress_drawn)
        draw(r);
    fflush(f);
    pthread_mutex_unlock(&r->mu);
}

void tune_emit(TuneRun *r, const CutuneTuneEvent *e)
{
    const CutuneTuneOptions *o = r->o;
    if (e->type == CUTUNE_EVENT_SIZE && !o->progress && o->log && e->median_ms > 0) {
        char t[48];
        clock_text(cutune_now() - r->started, t, sizeof t);
        char vs[96] = "";
        if (e->vs_yardstick > 0)
            snprintf(vs, sizeof vs, ", %.3fx %s", e->vs_yardstick, e->yardstick);
        tune_note(r, "[%s] %s %s: best %s %.4g ms%s", t, e->op, e->size, e->variant, e->median_ms,
                  vs);
    }
    if (!o->on_event)
        return;
    CutuneTuneEvent x = *e;
    x.elapsed_s = cutune_now() - r->started;
    x.budget_s = r->deadline > 0 ? r->deadline - r->started : 0;
    pthread_mutex_lock(&r->mu);
    o->on_event(&x, o->event_user);
    pthread_mutex_unlock(&r->mu);
}
