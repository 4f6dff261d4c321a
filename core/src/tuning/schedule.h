/* How a run spends its time budget: a cost model of one evaluation, each size's share of
 * the time left, and each variant's share of a size. Pure functions of what was measured,
 * so that the policy is tested without a GPU (tests/test_schedule.c). */
#ifndef CUTUNE_SCHEDULE_H
#define CUTUNE_SCHEDULE_H

#include <stddef.h>

/* What one evaluation costs, learned as the run goes. */
typedef struct CutuneCostModel {
    int threads;       /* compile threads */
    double compile_s;  /* NVRTC seconds for one config on one thread (cache misses) */
    double overhead_s; /* per evaluation besides the launches: check, IPC, commit */
    double launches;   /* launch-times an evaluation takes (checked launch, warm-up,
                             samples), as a multiple of one launch */
    double flop_rate;  /* FLOP/s and B/s of the fastest configs seen: a launch of a */
    double byte_rate;  /* new size takes about max(flops / flop_rate, bytes / byte_rate) */
    size_t nobs;
} CutuneCostModel;

void cutune_cost_init(CutuneCostModel *m, int threads);
/* Learn from one recorded evaluation: compile_ms (0 when the kernel came from the cache),
 * measure_ms (its time in the worker), and for an ok trial its median launch time with the
 * work of the problem. */
void cutune_cost_observe(CutuneCostModel *m, double compile_ms, double measure_ms, double median_ms,
                         double flops, double bytes);
/* Seconds one evaluation of a problem with this work is expected to take on the GPU, and
 * with its share of the compile pool when cold_fraction of the configs are not cached. */
double cutune_cost_eval_s(const CutuneCostModel *m, double flops, double bytes,
                          double cold_fraction);

/* The share of time_left that a size gets when it starts: sizes not started yet (this one
 * included, sizes_left of them) cost cost_rest per evaluation in sum, this one cost_this,
 * and `lanes` GPUs work in parallel; every size is meant to get about as many evaluations,
 * and at least half of an equal split (the warm start compiles the same configs at every
 * size, however cheap its launches). Never more than time_left. time_left <= 0 (no
 * deadline) gives 0, meaning no limit. */
double cutune_schedule_size_share(double time_left, int lanes, double cost_this, double cost_rest,
                                  size_t sizes_left);

/* A size of a run on several GPUs, as cutune_schedule_judge sees it. */
typedef struct CutuneJudgedSize {
    double cost;  /* its cost per evaluation (cutune_cost_eval_s); 0: tuned before */
    double taken; /* seconds of one GPU's budget it holds: a size done, the wall time it took;
                     a size running that was judged, its judged share; else 0 */
    int open;     /* not judged yet: waiting, or running without a judged share */
} CutuneJudgedSize;

/* Several GPUs: the share of sizes[self] (open) as one GPU would judge it, in seconds of one
 * GPU's budget: budget_s less what the other sizes hold, split over the open sizes by cost
 * (cutune_schedule_size_share on one lane); -1 when nothing of the budget is left. The GPUs
 * take their first sizes at once, so sizes running without a share yet are open: left out,
 * each first size's split left out the others', and on 4 x H200 the main job's 8192^3 bf16
 * got 2.2 times one GPU's share and measured cuBLASLt's space whole (840 configs where one
 * GPU searched 283: bench/RESULTS.md, multi-GPU, 2026-11-29). */
double cutune_schedule_judge(const CutuneJudgedSize *sizes, size_t n, size_t self, double budget_s);

/* How much a variant may still win at a size, from its best so far against the size's:
 * 1 when it is within 5% of the best, 0.25 within 30%, else 0 (it cannot win: it keeps
 * the best it recorded; on an H100 a warm-started matmul_warptile at 1.12x matmul_async's
 * best gained nothing from an equal share). A variant with no verified config yet gets 0.25
 * while it has configs left. */
double cutune_schedule_promise(double variant_best_ms, double size_best_ms, size_t left);

/* A variant's warm start shows its level in its first CUTUNE_WARM_EARLY configs (the best
 * known elsewhere come first: tune_warm_list); it goes on past them unless its best is then
 * over 1.6x the size's best, and past its first CUTUNE_WARM_SHOWN unless it is then over
 * 1.5x (a variant with no verified config goes on); `shown`: the configs of its warm list
 * measured so far. Replayed on the trials of 16 main jobs on H100s and H200s (2026-11-27 and
 * 2026-11-28: each variant's warm start cut where the rule at 8 configs would have cut it),
 * no size would have lost its best, and a one-GPU run gives back 5 s, 4.4 s of it at 8192^3
 * fp32 where 24 more configs of matmul_async at 1.65x the best took 180 ms each. At 1.3x one
 * size would have lost it (matmul_async at 128x4096x4096 fp32, 1.9x behind after 8 configs
 * and the best after 32). The cut at 4 configs, replayed on the 46 runs kept under
 * bench/results (bench/warm_cut_replay.py --rule 4:1.6,8:1.5), drops 134 more GPU seconds
 * (about 3 s a run) and no size's best; of the variants that ended within 5% of their
 * size's best, none was over 1.49x behind after 4 configs, where one was 1.79x behind after
 * 3 (matmul_mma at 16x8192x28672 bf16). */
#define CUTUNE_WARM_EARLY 4
#define CUTUNE_WARM_SHOWN 8
int cutune_schedule_warm_on(double variant_best_ms, double size_best_ms, size_t shown);

/* How many measurements without a gain end a search that the scheduler chose: 1.2
 * pipeline windows of `window` proposals, at least 50; a quarter of that, at least 25, for
 * a variant whose promise is under 1, which must beat the size's leader to matter, not only
 * its own best (on an H200 such searches of matmul_warptile gained nothing in 100). The
 * floor was 100: replayed on the trials of four main jobs on H200s (2026-11-28,
 * bench/stall_replay.py: the searches cut where 50 would have ended them), every size kept
 * 0.995-1.000 of its best, and the searches gave back 10-12 s of GPU time a one-GPU run. It
 * was three windows, which on 64 cores (a window of 66) is 198: at 8192^3 fp32 on 4 x H200
 * (b16aaa1) the leader measured 198 configs after its best, 19 s on the GPU that bounded the
 * run. Replayed (`--patience 198 --rule min --scale 0.4`, 79) on seven runs of that host
 * (233213d and b16aaa1: main jobs on 1, 2 and 4 GPUs, the 30-size job on 1 and 4), every
 * size kept 0.9998 of its best and 21-42 s of GPU time came back a run; at 54 one size lost
 * 11%. On 32 cores (102 before, 50 now) four main jobs kept every best (`--patience 102
 * --scale 0.5`). */
size_t cutune_schedule_patience(size_t window, double promise);

/* Whether a search over a whole space, chosen because the space seemed to fit its time, is
 * late: after `measured` new measurements in elapsed_s (at least 2 windows' worth, so that
 * the pipeline has filled), the `rest` configs still to measure would take over twice the
 * time_left_s it has. The cost model can misjudge a space (on an H100, a whole search of
 * matmul_async's 110,504 configs at 128x4096x4096 ran to the run's deadline); a late search
 * then takes up a patience and ends when it stops finding better configs. */
int cutune_schedule_late(size_t measured, double elapsed_s, size_t rest, double time_left_s,
                         size_t window);

/* Whether a phase of patience `patience` (0: none) takes up `late_patience` (0: none) once it
 * runs late: where it has none, or a longer one (a whole space's quarter: 27,626 for
 * matmul_async's 110,504 configs would not end it before its deadline either). */
int cutune_schedule_takes_late(size_t patience, size_t late_patience);

/* Whether the scheduler measures a variant's space whole rather than searching it: only when
 * the rest of it fits the variant's share (need <= share) and the variant's best so far leads
 * the size's or ties it within timing noise (1%). Every other variant is searched, with the
 * patience its promise gives, even where its space fits:
 * - on 4 H200s (bench/RESULTS.md, multi-GPU, 2026-11-27) the main job measured matmul_wgmma
 *   at 4096x11008x4096-bf16-nt whole, 1,036 configs and 1,693 s of NVRTC, and ended 1.13x
 *   behind cuBLASLt as it began; one GPU searched 66;
 * - on 2 H200s (multi-GPU, 2026-11-28) matmul_wgmma at 8192x8192x8192-bf16-nt began 1.035x
 *   behind cuBLASLt, within the 5% that once counted as leading: measured whole, 1,017
 *   configs took a GPU's first 45 s and about 800 s of NVRTC, and it ended 1.035x behind; the
 *   one-GPU run of the same call began 1.051x behind and searched 46. */
int cutune_schedule_whole(double need, double share, double variant_best_ms, double size_best_ms);

/* The patience of a space measured whole (`patience` that of a search): it too ends once an
 * sixteenth of the space, and at least `patience` measurements, have brought no better config,
 * so that a space smaller than the patience is measured to its end. On an H100
 * (bench/RESULTS.md, tensor cores) matmul_mma at 4096x11008x4096-bf16-nt measured 1225 of
 * 2124 configs and its first, from the warm start, was the best; on an H200 (multi-GPU,
 * 2026-11-27) matmul_3xtf32 at 8192^3 found its best in its 3rd config and measured 460 more
 * of its 820 for 63 s, the longest stretch of the main job, until its share ran out. It was
 * a quarter: replayed on four main jobs' trials (H200, 2026-11-28, bench/stall_replay.py),
 * an eighth kept every size's best, and gave back 4-17 s of GPU time a run. It was an
 * eighth: at 8192^3 fp32 matmul_wgmma_3xtf32_nn's 1068 configs found the best in the warm
 * start and measured 198 more (13 s at 97 ms) on the GPU that bounded a 4-GPU run (4 x H200,
 * 233213d); replayed on six main jobs (2026-11-28, `--rule whole --scale 0.5`), a sixteenth
 * kept every size's best within 0.9998 and gave back 12-38 s of GPU time a run (11.5 s of
 * it at that size), where a thirty-second would have lost up to 11% of a size's best. */
size_t cutune_schedule_whole_patience(size_t patience, size_t nconfigs);

/* The compiles one lane (GPU) may have in flight, of a run whose window is `window` (its
 * compile threads + 2), while `searching` lanes search: the lane's part of the threads + 2,
 * and the whole window for a lane alone. The threads take compile jobs in the order they
 * come, so lanes that each filled the whole window queued ahead of one another: on 4 H200s
 * sharing 64 threads (bench/RESULTS.md, multi-GPU, 2026-11-27) the GPU measuring the run's
 * longest size waited 39 s on compiles while the other three searched. */
size_t cutune_schedule_lane_window(int window, int searching);

/* Whether a lane with `inflight` configs in its pipeline may propose one more: within its part
 * of the threads (`fair`, cutune_schedule_lane_window) always; beyond it, up to the whole
 * `window`, while the compile pool has an idle thread (`pending` jobs queued or running of
 * `threads`). So a GPU whose search is bound by compiles takes the threads that a GPU bound
 * by its measurements leaves idle, and no lane's compiles queue far behind another's. */
int cutune_schedule_may_propose(size_t inflight, size_t fair, size_t window, int pending,
                                int threads);

/* Split `time` seconds of a size among n variants: need[i] is the time variant i needs to
 * measure all its configs left, promise[i] its promise. Variants with promise 0 get 0; a
 * variant whose need is below its proportional share gets its need and the rest goes to
 * the others. Writes share[0..n). */
void cutune_schedule_split(const double *need, const double *promise, size_t n, double time,
                           double *share);

#endif
