#!/usr/bin/env python3
"""Record, tune, then run a small transformer through cutune: TunableOp's workflow with
cutune's kernels. The model is plain PyTorch (no downloads): pre-norm blocks of attention
(QKV and output projections) and an MLP, in BF16. Its GEMMs are the four nn.Linear shapes of
a block, each F.linear(x, W, b): layout nt with the bias epilogue ("MxNxK-bf16-nt-bias", the
bias added by the kernel, as cuBLASLt's epilogue adds it for torch), or without it under
--no-bias.

    python examples/torch_transformer.py --db model.db              # record, tune, time
    python examples/torch_transformer.py --db model.db --no-tune    # time what is tuned
    python examples/torch_transformer.py --db model.db --no-tune --graph  # in CUDA graphs

1. `with cutune.record(db)`: one step of the model; its GEMM shapes (dtype, layout) become
   pending requests in the database, listed here;
2. cutune.tune(): `cutune run matmul --pending --device 0 --time SEC`;
3. per shape: cutune's tuned kernel against torch's own (cuBLAS/cuBLASLt), each timed alone
   with CUDA events, best of several repetitions, and whether use() routes it;
4. the model's step (inference, or --train: forward and backward) without and then inside
   `with cutune.use()`, which routes an F.linear to cutune where its tuned config beats the
   cuBLAS/cuBLASLt time `cutune run` recorded for that shape by 3% (cutune.prefer_tuned);
   eagerly also with `cutune.swap(model)`: the same rule for the model's nn.Linear layers
   alone, without use()'s hook on every other torch call. Eagerly the three take turns, 7
   rounds of 5 steps each, and each is reported by its best round: an eager step of this
   model is paced by the host, whose speed drifts over seconds.

--graph times CUDA graphs in 3 and 4 instead of eager calls: each GEMM alone, and the step
without and then inside use(), is captured once (torch.cuda.graph, after warm-up calls on a
side stream, where cutune loads each kernel and prepares each cuBLASLt call) and timed by
replaying it, so that the host's cost of a call drops out and the kernels' times remain. The
routed step is warmed up and captured inside one use() region, whose routing the graph
keeps. A capture that fails, or one that sends another number of GEMMs to cutune than the
eager step does, ends the script with exit status 1 and the reason.

Needs a GPU, PyTorch and the cutune package (pip install .). The speed-ups printed are of
the machine it runs on; nothing is assumed."""
import argparse
import math
import time

import torch
import torch.nn.functional as F

import cutune


class Block(torch.nn.Module):
    def __init__(self, d, heads, mlp, bias):
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d, bias=bias)
        self.proj = torch.nn.Linear(d, d, bias=bias)
        self.norm2 = torch.nn.LayerNorm(d)
        self.up = torch.nn.Linear(d, mlp * d, bias=bias)
        self.down = torch.nn.Linear(mlp * d, d, bias=bias)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, d // self.heads).unbind(2)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                           v.transpose(1, 2), is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


class Transformer(torch.nn.Module):
    def __init__(self, d=1024, heads=16, layers=4, mlp=4, bias=True):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block(d, heads, mlp, bias) for _ in range(layers))

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return x


def cuda_time(fn, reps=20, rounds=5):
    """The best of `rounds` means over `reps` calls, in milliseconds (CUDA events)."""
    fn()
    torch.cuda.synchronize()
    best = math.inf
    for _ in range(rounds):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / reps)
    return best


def eager_steps(step, regions, reps=5, rounds=7):
    """The best over `rounds` of each region's mean step time (ms, CUDA events) over `reps`
    steps, the regions in turn within each round: a region is None (torch alone) or a
    function giving a context manager (use(), swap()), entered for its block after one
    step outside the timing (where it decides its shapes)."""
    import contextlib
    best = [math.inf] * len(regions)
    for _ in range(rounds):
        for i, region in enumerate(regions):
            with (region() if region else contextlib.nullcontext()):
                best[i] = min(best[i], cuda_time(step, reps=reps, rounds=1))
    return best


WARMUP = 3  # calls before a capture


def graphed(fn, side):
    """fn captured in a CUDA graph after WARMUP calls on the stream `side`, as
    torch.cuda.graph asks: what must not be captured happens there (a first launch loads a
    kernel; cuBLAS makes its workspace). Returns the graph and fn's output in its memory."""
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(WARMUP):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = fn()
    return g, out


def captured(fn, side, what):
    """graphed(fn, side), or exit 1 saying why `what` could not be captured."""
    try:
        return graphed(fn, side)
    except Exception as e:  # torch's RuntimeError, cutune.CutuneError, ...
        why = "%s: %s" % (type(e).__name__, e)
        if e.__context__ is not None:  # the capture's end failing after the first error
            why += "\n  after %s: %s" % (type(e.__context__).__name__, e.__context__)
        raise SystemExit("torch_transformer --graph: capturing %s failed: %s" % (what, why))


def graph_steps(step, h, side):
    """The step captured alone and inside use() (db: the open handle h, whose kernels the
    graph launches), each timed by replays: (torch ms, cutune ms, cutune's output, torch's,
    GEMMs routed a step). Exits 1 where the routed capture routes otherwise than eagerly."""
    g0, ref = captured(step, side, "the step (torch alone)")
    # a graph replays its kernels with no host cost a call: no GEMM is too short to route
    with cutune.use(db=h, min_ms=0) as region:
        step()  # eagerly first: use() decides each shape, outside any capture
        eager = region.routed
        g1, y = captured(step, side, "the step inside cutune.use()")
        in_graph = region.routed - eager * (1 + WARMUP)
    if in_graph != eager:
        raise SystemExit("torch_transformer --graph: the captured step sent %d GEMMs to cutune, "
                         "the eager step %d: the graph is not the step that use() runs"
                         % (in_graph, eager))
    before, after = cuda_time(g0.replay, reps=5), cuda_time(g1.replay, reps=5)
    torch.cuda.synchronize()
    return before, after, y, ref, eager


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--db", default="torch_transformer.db")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=512)
    p.add_argument("--dim", type=int, default=1024)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--time", default="120", help="cutune run's --time per run (seconds)")
    p.add_argument("--no-tune", action="store_true", help="skip recording and tuning")
    p.add_argument("--train", action="store_true", help="time forward and backward")
    p.add_argument("--graph", action="store_true",
                   help="time CUDA graph replays (each GEMM, and the step, captured once) "
                        "instead of eager calls: the kernels' time without the host's")
    p.add_argument("--no-bias", action="store_true",
                   help="Linear layers without bias (with one, each GEMM is tuned and run with "
                        "the bias epilogue, against cuBLASLt's)")
    a = p.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("torch_transformer: needs a CUDA device")
    torch.manual_seed(0)
    model = Transformer(a.dim, layers=a.layers, bias=not a.no_bias).cuda().to(torch.bfloat16)
    x = torch.randn(a.batch, a.seq, a.dim, device="cuda", dtype=torch.bfloat16,
                    requires_grad=a.train)

    def step():
        y = model(x)
        if a.train:
            y.float().square().mean().backward()
        return y

    if not a.no_tune:
        with cutune.record(db=a.db):
            step()
        print("GEMMs of one step (recorded as pending requests in %s):" % a.db)
        for r in cutune.recorded():
            print("  %-28s calls %-3d %s" % (r["size"], r["calls"], r["match"]))
        t0 = time.time()
        cutune.tune(db=a.db, device=0, args=["--time", a.time])
        print("tuned in %.0f s" % (time.time() - t0))

    side = torch.cuda.Stream() if a.graph else None  # where the warm-ups before a capture run
    min_ms = 0 if a.graph else cutune.ROUTE_MIN_MS  # graphs: no host cost a call (graph_steps)

    def timed(fn, what):
        return cuda_time(captured(fn, side, what)[0].replay) if a.graph else cuda_time(fn)

    print("\nper shape (ms%s; torch = its cuBLAS/cuBLASLt; routed: whether use() calls cutune's "
          "kernel, tuned and %.0f%% faster than the cuBLAS/cuBLASLt time the run recorded, "
          "where that time is at least %.2f ms):"
          % (", CUDA graph replays" if a.graph else "", 100 * cutune.ROUTE_MARGIN,
             min_ms))
    print("  %-28s %9s %9s %8s %6s" % ("size", "torch", "cutune", "speed-up", "routed"))
    with cutune.record(db=a.db):  # the shapes again, to time each alone
        with torch.no_grad():
            model(x.detach())
    h = cutune.open(a.db)
    for r in cutune.recorded():
        m, n, k = r["M"], r["N"], r["K"]
        if r["dtype"] != "bf16":
            continue
        xa = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        b = w.t() if r["layout"] == "nt" else w.t().contiguous()
        bias = torch.randn(n, device="cuda", dtype=torch.bfloat16) if r.get("bias") else None
        if bias is not None:  # torch's F.linear: cuBLASLt with its bias epilogue
            t_torch = timed(lambda: torch.nn.functional.linear(xa, w, bias), "torch's " + r["size"])
        else:
            t_torch = timed(lambda: xa @ b, "torch's " + r["size"])
        if not h.lookup("matmul", r["size"], device=0):
            print("  %-28s %9.4f %9s %8s %6s" % (r["size"], t_torch, "untuned", "", "no"))
            continue
        t_cut = timed(lambda: h.matmul(xa, b, dtype="bf16", bias=bias), "cutune's " + r["size"])
        routed = "yes" if h.prefers_tuned("matmul", r["size"], device=0, min_ms=min_ms) else "no"
        print("  %-28s %9.4f %9.4f %7.3fx %6s" % (r["size"], t_torch, t_cut, t_torch / t_cut,
                                                 routed))

    with torch.no_grad() if not a.train else torch.enable_grad():
        if a.graph:
            before, after, y, ref, per_step = graph_steps(step, h, side)
        else:
            # torch alone, inside use(), with swap(model) (the Linear layers alone, no
            # mode): in turns, so that the host's slow and fast spells fall on all three
            before, after, swapped = eager_steps(step, [
                None, lambda: cutune.use(db=h), lambda: cutune.swap(model, db=h)])
            with cutune.use(db=h):
                y = step()
            ref = step()
            with cutune.swap(model, db=h) as sw:
                y_swap = step()
                swap_per_step = sw.routed
            err_swap = ((y_swap.float() - ref.float()).abs().max()
                        / ref.float().abs().max()).item()
    err = ((y.float() - ref.float()).abs().max() / ref.float().abs().max()).item()
    print("\nstep (%s, BF16, %d x %d tokens, d=%d, %d blocks%s):" % (
        "forward + backward" if a.train else "inference", a.batch, a.seq, a.dim, a.layers,
        "; CUDA graph replays" if a.graph else ""))
    print("  torch alone %.3f ms, with cutune.use() %.3f ms: %.3fx; max relative difference "
          "%.2g" % (before, after, before / after, err))
    if not a.graph:
        print("  torch alone %.3f ms, with cutune.swap(model) %.3f ms: %.3fx; max relative "
              "difference %.2g; GEMMs sent to cutune a step: %d"
              % (before, swapped, before / swapped, err_swap, swap_per_step))
    if a.graph:
        print("  GEMMs sent to cutune a step: %d%s" % (
            per_step, "" if per_step else " (none is tuned and faster than its yardstick by "
                                          "the margin: both graphs are torch's)"))
    h.close()  # after the graphs that launch its kernels (gone with graph_steps and timed)


if __name__ == "__main__":
    main()
