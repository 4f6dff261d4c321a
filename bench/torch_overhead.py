#!/usr/bin/env python3
"""The host's cost of one cutune call from PyTorch, against torch's own: wall time per call
of a small GEMM (the kernel takes a few microseconds, so the rest is the call path), with the
GPU kept busy enough that launches queue. Issue 32's target: cutune within torch's own
overhead + 5 us.

    python bench/torch_overhead.py --db tuned.db [--size 64] [--dtype bf16] [--calls 20000]

The database must hold a config for SIZE^3 in that dtype, layout nt (the F.linear one):
    cutune run matmul --size 64 --dtype bf16 --layout nt --db tuned.db
Prints one line per path: torch (x @ W.t()), cutune.matmul (the short path for torch
tensors), torch.ops.cutune.matmul (through PyTorch's dispatcher), F.linear inside
cutune.use(), and Handle.matmul (the generic path for any device array). Exits 77 without
a GPU or PyTorch."""
import argparse
import sys
import time


def per_call(fn, calls, torch):
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t) / calls)
    return best * 1e6


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--db", required=True)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--dtype", default="bf16", choices=["fp32", "tf32", "fp16", "bf16"])
    p.add_argument("--calls", type=int, default=20000)
    a = p.parse_args()
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
    n = a.size
    x = torch.randn(n, n, device="cuda", dtype=dt)
    w = torch.randn(n, n, device="cuda", dtype=dt)
    wt = w.t()
    if not cutune.lookup("matmul", "%dx%dx%d-%s-nt" % (n, n, n, a.dtype)):
        print("nothing tuned for %dx%dx%d-%s-nt in %s: cutune run matmul --size %d --dtype %s "
              "--layout nt --db %s" % (n, n, n, a.dtype, a.db, n, a.dtype, a.db))
        return 1
    h = cutune.open(a.db)
    F = torch.nn.functional
    rows = [("torch x @ W.t()", lambda: x @ wt),
            ("cutune.matmul", lambda: cutune.matmul(x, wt, dtype=a.dtype)),
            ("torch.ops.cutune.matmul", lambda: torch.ops.cutune.matmul(x, wt, a.dtype)),
            ("Handle.matmul", lambda: h.matmul(x, wt, dtype=a.dtype))]
    results = {name: per_call(fn, a.calls, torch) for name, fn in rows}
    with cutune.use(db=h):
        results["F.linear in cutune.use()"] = per_call(lambda: F.linear(x, w), a.calls, torch)
    results["F.linear, torch alone"] = per_call(lambda: F.linear(x, w), a.calls, torch)
    base = results["torch x @ W.t()"]
    print("%s, %dx%dx%d %s nt, %d calls, best of 3:" % (torch.cuda.get_device_name(), n, n, n,
                                                         a.dtype, a.calls))
    for name, us in results.items():
        print("  %-28s %7.2f us a call (%+.2f us against torch)" % (name, us, us - base))
    print("the parts of cutune.matmul's call, each alone:")
    for name, us in parts(cutune, torch, x, wt, n, a.dtype, a.calls).items():
        print("  %-28s %7.2f us a call" % (name, us))
    h.close()
    return 0


def parts(cutune, torch, x, wt, n, dtype, calls):
    """What cutune.matmul's short path is made of, timed alone: its checks of the tensors, the
    output's allocation, and the ctypes call into cutune_gemm_on (lookup and launch, on
    arguments made beforehand), against the whole call."""
    from cutune import _lib, _torch
    c = _torch._call(None)
    out = x.new_empty((n, n))
    dev = x.get_device()
    stream = c.stream(dev)
    args = (c.h, dev, _lib.DTYPES[dtype], _lib.LAYOUTS["nt"], x.data_ptr(), wt.data_ptr(),
            out.data_ptr(), n, n, n, stream, None, c.err_ref)
    fn = c.fn
    return {"the checks (_check)": per_call(lambda: _torch._check(x, wt, dtype), calls, torch),
            "the output (new_empty)": per_call(lambda: x.new_empty((n, n)), calls, torch),
            "the C call alone (ctypes)": per_call(lambda: fn(*args), calls, torch),
            "the whole cutune.matmul": per_call(lambda: cutune.matmul(x, wt, dtype=dtype), calls,
                                                torch)}


if __name__ == "__main__":
    sys.exit(main())
