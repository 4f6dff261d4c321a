/* Replaying search strategies against recorded spaces: no GPU, no compilation.
 *
 * A recording is the valid configs of one space for one problem, each with the status and
 * median time an exhaustive run measured. A strategy proposes configs as in `cutune run`,
 * with the same look-ahead window; results come back in proposal order (the tuner's come
 * as compiles finish, which differs only where compile times do); each proposal
 * is answered from the recording and costs one evaluation. The fraction of the optimum
 * reached within b evaluations is best_ms / (the best time among the first b proposals),
 * 0 if none of them was ok. */
#ifndef CUTUNE_REPLAY_H
#define CUTUNE_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "cutune/cutune.h"
#include "space.h"
#include "strategy.h"

/* Status of a config of the space that the recording does not hold. The strategy is told
 * CUTUNE_STATUS_SKIPPED_RESOURCES: it costs an evaluation and can never be best, as a
 * config the real run could not measure. */
#define CUTUNE_REPLAY_MISSING (-1)

typedef struct CutuneRecording {
    size_t nparams;
    char (*param_names)[CUTUNE_NAME_MAX];
    CutuneConfigList configs; /* what the strategy searches */
    int *status;              /* per config: a CutuneStatus, or CUTUNE_REPLAY_MISSING */
    double *median_ms;        /* per config: > 0 when status is ok */
    double *compile_ms;       /* per config: its compile time, 0 when unknown (CSV) */
    double best_ms;           /* the fastest ok config; 0 if there is none */
    size_t nok, nfailed, nmissing;
    size_t nunmatched; /* recorded configs that are not in the space (ignored) */
    char device[256], date[32], variant[CUTUNE_NAME_MAX], size[64];
    char source[512]; /* the file it was loaded from */
    char origin[512]; /* a CSV's "# source:": the database it was extracted from */
} CutuneRecording;

void cutune_recording_free(CutuneRecording *r);

/* Load the trials of one variant and problem size from a cutune database (SQLite) or a
 * CSV recording (see recording.c for the format; chosen by the file's first bytes).
 * variant and size may be NULL for a CSV, which names them in its header. device: a
 * case-insensitive substring of the device name or its UUID; NULL is fine when the
 * database holds one device for that variant and size. space: when not NULL, the
 * strategies search its valid configs under sm_90 limits for this size (configs it has
 * but the recording lacks are MISSING); when NULL, the recorded configs are the space.
 * From a database, only the newest version of the variant (another kernel source is a
 * new version) that has trials at that size is read. A config measured several times
 * gets the median of its medians, and counts as ok only if every trial was ok. Errors name the file and what is missing. */
int cutune_recording_load(const char *path, const char *variant, const char *size,
                          const char *device, const CutuneSpace *space, CutuneRecording *out,
                          CutuneError *err);

/* A warm start for replays that is honest: the (at most) k fastest ok configs of another
 * recording of the same space (another device, or another size), as indices into to's
 * configs, fastest first, written to out; configs that to lacks are skipped. Matched by
 * parameter name and value. Returns how many (0 to k), or a negative error, with a
 * message, when a parameter of to is not in from. */
long cutune_recording_best_of(const CutuneRecording *from, const CutuneRecording *to, size_t k,
                              size_t *out, CutuneError *err);

/* Write a recording as CSV (the format cutune_recording_load reads). */
int cutune_recording_write_csv(const CutuneRecording *r, const char *path, CutuneError *err);

/* A synthetic landscape of about ten thousand valid configs (7 parameters): a smooth
 * log-time with interactions between parameters, rugged per-level and per-config
 * terms, and holes (failed configs: resources, compile errors, wrong results) in
 * structured and random places. The same seed gives the same landscape. */
int cutune_landscape_generate(uint64_t seed, CutuneRecording *out);

/* One replay of a strategy with a budget of b evaluations (the strategy is told b, and
 * told window as its parallel), the warm start start[0..nstart) (may be NULL): *best_found
 * gets the best ok time among its proposals (0 if none), *proposals how many it made
 * (fewer than b only if it said DONE), order (if not NULL, room for b) the proposals,
 * *compile_ms (if not NULL) the sum of their recorded compile times (0 where the
 * recording has none).
 * Fails with CUTUNE_ERR_INVALID when the strategy proposes an index out of range or one
 * it proposed before. */
int cutune_replay_once(const CutuneStrategyOps *ops, const CutuneRecording *r, uint64_t seed,
                       size_t budget, size_t window, const size_t *start, size_t nstart,
                       double *best_found, size_t *proposals, size_t *order, double *compile_ms,
                       CutuneError *err);

/* Summary of the fraction of the optimum over seeds, at one budget. */
typedef struct CutuneReplayStat {
    size_t budget; /* as asked; evaluations actually possible: min(budget, nconfigs) */
    double median, p10, p25, p75, min, max, mean; /* p10: the 10th percentile (the tail) */
    double seconds;                               /* mean wall time of one replay at this budget */
    double compile_s; /* mean recorded compile time of one replay's proposals (0: unknown) */
} CutuneReplayStat;

/* Replay ops with seeds seed0, seed0+1, ... (nseeds of them) at each budget, each with
 * the same warm start (may be NULL); stats gets nbudgets entries. */
int cutune_replay_stats(const CutuneStrategyOps *ops, const CutuneRecording *r, uint64_t seed0,
                        size_t nseeds, const size_t *budgets, size_t nbudgets, size_t window,
                        const size_t *start, size_t nstart, CutuneReplayStat *stats,
                        CutuneError *err);

#endif
