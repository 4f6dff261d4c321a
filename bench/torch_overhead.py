#!/usr/bin/env python3
"""The host's cost of one cutune call from PyTorch, against torch's own: wall time per call
of a GEMM, through each path a PyTorch user has. Issue 32's target: cutune within torch's
own overhead + 5 us.

    python bench/torch_overhead.py --db tuned.db [--size 64 | --size 4096x1024x1024]
                                   [--dtype bf16] [--bias] [--host] [--grad]

The database must hold a config for the size in that dtype, layout nt (the F.linear one),
with the bias epilogue for --bias:
    cutune run matmul --size 64 --dtype bf16 --layout nt --db tuned.db
    cutune run matmul --size 4096x1024x1024 --dtype bf16 --layout nt --epilogue bias ...
A small size (the default, 64^3) is timed as calls queued behind one another: its kernel
takes a few microseconds, so the rest is the call path. A size whose kernel takes longer
than the host's call would be timed by the GPU that way: with --host each figure is the
host's time alone, blocks of 400 calls issued while the GPU drains them (the launch queue
never fills), with the synchronize outside the timing. The paths take turns, a block each
per round, 15 rounds: each is reported by its best block and its median.

Prints one line per path: torch (x @ W.t(), or F.linear(x, W, b) with --bias or --grad),
cutune.matmul (the short path for torch tensors), torch.ops.cutune.matmul (through
PyTorch's dispatcher), Handle.matmul, F.linear inside cutune.use(), and an nn.Linear layer
under cutune.swap() against the same layer alone (use() and swap() route every call here,
with margin -0.5 and min_ms 0, where their default rule keeps a GEMM this short torch's);
then the parts of cutune.matmul's call alone. --grad times training's forward (the layer's
weight and bias need gradients: the routed call goes through an autograd Function): torch,
use() and swap() only. Exits 77 without a GPU or PyTorch, 1 where the database has nothing
for the size."""
import argparse
import sys
import time

HOST_CALLS = 400  # host-timed blocks: few enough that the launch queue never fills
QUEUED_CALLS = 2000  # queued blocks
ROUNDS = 15


def timed(paths, torch, host, rounds=ROUNDS):
    """{name: (best, median) microseconds a call}. paths: (name, fn, region) with region a
    function giving a context manager to time fn in (None: none). The paths take turns: each
    round times one block of calls of every path in order, so that the host's slow and fast
    spells (this bench's spread from run to run is several microseconds) fall on all of them
    alike."""
    import contextlib
    import statistics
    n = HOST_CALLS if host else QUEUED_CALLS
    times = {name: [] for name, _, _ in paths}
    for r in range(rounds + 1):  # round 0 warms every path up
        for name, fn, region in paths:
            with (region() if region else contextlib.nullcontext()):
                for _ in range(20):
                    fn()
                torch.cuda.synchronize()
                t = time.perf_counter()
                for _ in range(n):
                    fn()
                if not host:
                    torch.cuda.synchronize()
                dt = (time.perf_counter() - t) / n * 1e6
                torch.cuda.synchronize()
            if r:
                times[name].append(dt)
    return {name: (min(v), statistics.median(v)) for name, v in times.items()}


def parse_size(text):
    dims = [int(v) for v in text.lower().split("x")]
    if len(dims) == 1:
        dims *= 3
    if len(dims) != 3 or min(dims) <= 0:
        raise argparse.ArgumentTypeError("--size: N or MxNxK of positive integers, not %r"
                                         % text)
    return tuple(dims)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--db", required=True)
    p.add_argument("--size", type=parse_size, default=(64, 64, 64), help="N or MxNxK")
    p.add_argument("--dtype", default="bf16", choices=["fp32", "tf32", "fp16", "bf16"])
    p.add_argument("--bias", action="store_true",
                   help="F.linear with a bias: the size's \"-bias\" config (fp16, bf16)")
    p.add_argument("--host", action="store_true",
                   help="time the host alone (for a size whose kernel outlasts a call)")
    p.add_argument("--grad", action="store_true",
                   help="the layer's weight and bias need gradients (training's forward): "
                        "F.linear, use() and swap() only")
    a = p.parse_args()
    if a.bias and a.dtype not in ("fp16", "bf16"):
        p.error("--bias takes --dtype fp16 or bf16 (cutune's kernels add a bias in those)")
    try:
        import torch
    except ImportError:
        print("no PyTorch: skipped")
        return 77
    if not torch.cuda.is_available():
        print("no CUDA device: skipped")
        return 77
    import os
    os.environ["CUTUNE_DB"] = a.db
    import cutune
    dt = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16,
          "bf16": torch.bfloat16}[a.dtype]
    torch.backends.cuda.matmul.allow_tf32 = a.dtype == "tf32"
    M, N, K = a.size
    x = torch.randn(M, K, device="cuda", dtype=dt)
    lin = torch.nn.Linear(K, N, bias=a.bias, device="cuda", dtype=dt).requires_grad_(False)
    w = lin.weight
    wt = w.t()
    bias = lin.bias
    size = "%dx%dx%d-%s-nt%s" % (M, N, K, a.dtype, "-bias" if a.bias else "")
    if not cutune.lookup("matmul", size):
        print("nothing tuned for %s in %s: cutune run matmul --size %dx%dx%d --dtype %s "
              "--layout nt%s --db %s" % (size, a.db, M, N, K, a.dtype,
                                         " --epilogue bias" if a.bias else "", a.db))
        return 1
    host = a.host
    h = cutune.open(a.db)
    F = torch.nn.functional
    kw = {"bias": bias} if a.bias else {}
    if a.grad:  # training's forward: the weight (and the bias) need a gradient
        lin.requires_grad_(True)
    # use() and swap() route every tuned call here, whatever the recorded yardstick (margin
    # -0.5, min_ms 0): the routed path's cost is what is timed, where the default rule keeps
    # a GEMM this short torch's
    force = {"margin": -0.5, "min_ms": 0}
    regions = {}

    def region(kind):
        def enter():
            r = cutune.use(db=h, **force) if kind == "use" else cutune.swap(lin, db=h, **force)
            regions.setdefault(kind, []).append(r)
            return r
        return enter

    linear = (lambda: F.linear(x, w, bias))
    paths = [("torch F.linear" if a.bias or a.grad else "torch x @ W.t()",
              linear if a.bias or a.grad else (lambda: x @ wt), None)]
    if not a.grad:
        paths += [("cutune.matmul", lambda: cutune.matmul(x, wt, dtype=a.dtype, **kw), None),
                  ("torch.ops.cutune.matmul",
                   lambda: torch.ops.cutune.matmul(x, wt, a.dtype, bias), None),
                  ("Handle.matmul", lambda: h.matmul(x, wt, dtype=a.dtype, **kw), None)]
    paths += [("F.linear in cutune.use()", linear, region("use")),
              ("F.linear, torch alone", linear, None),
              ("nn.Linear in cutune.swap()", lambda: lin(x), region("swap")),
              ("nn.Linear, torch alone", lambda: lin(x), None)]
    if not a.grad:
        paths += parts(cutune, torch, x, wt, bias, (M, N, K), a.dtype)
    results = timed(paths, torch, host)
    base = results[paths[0][0]][0]
    print("%s, %s%s, %s, %d rounds of each path in turn, best (median):" % (
        torch.cuda.get_device_name(), size, ", forward with gradients" if a.grad else "",
        "host time of blocks of %d calls issued (the kernel outlasts a call)" % HOST_CALLS
        if host else "blocks of %d calls queued" % QUEUED_CALLS, ROUNDS))
    for name, (best, median) in results.items():
        if name.startswith("part: "):
            continue
        print("  %-28s %7.2f us a call (%+.2f us against torch; median %.2f)"
              % (name, best, best - base, median))
    print("  routed (every tuned call, whatever the yardstick): use() %d calls, swap() %d "
          "calls" % tuple(sum(r.routed for r in regions[k]) for k in ("use", "swap")))
    if not a.grad:
        print("the parts of cutune.matmul's call, each alone:")
        for name, (best, median) in results.items():
            if name.startswith("part: "):
                print("  %-28s %7.2f us a call (median %.2f)" % (name[6:], best, median))
    h.close()
    return 0


def parts(cutune, torch, x, wt, bias, mnk, dtype):
    """What cutune.matmul's short path is made of, as paths to time: its checks of the
    tensors, the output's allocation, and the ctypes call into cutune_gemm(_bias)_on (lookup
    and launch, on arguments made beforehand)."""
    from cutune import _lib, _torch
    M, N, K = mnk
    c = _torch._call(None)
    out = x.new_empty((M, N))
    dev = x.get_device()
    stream = c.stream(dev)
    common = (c.h, dev, _lib.DTYPES[dtype], _lib.LAYOUTS["nt"], x.data_ptr(), wt.data_ptr())
    tail = (out.data_ptr(), M, N, K, stream, None, c.err_ref)
    if bias is not None:
        fn, args = c.fn_bias, common + (bias.data_ptr(),) + tail
    else:
        fn, args = c.fn, common + tail
    return [("part: the checks (_check)", lambda: _torch._check(x, wt, dtype), None),
            ("part: the output (new_empty)", lambda: x.new_empty((M, N)), None),
            ("part: the C call alone (ctypes)", lambda: fn(*args), None)]


if __name__ == "__main__":
    sys.exit(main())
