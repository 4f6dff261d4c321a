#!/usr/bin/env python3
"""How NVRTC compiles scale on one host: the same configs of a variant compiled by T threads of
one process (as cutune's compile pool does) or by P processes of one thread each, cold (no
cache of any kind). It prints the wall time, the configs a second, and the mean compile time.

    compile_scaling.py SPACE.ini RECORDING.db --set top:64|random:200|all
                       [--threads 1,8,16] [--procs 16] [--repeat 1] [--arch 90]

The configs come from a cutune database (its trials' config strings); "top:N" takes the N
fastest correct configs, "random:N" N configs drawn with seed 1. NVRTC is loaded with ctypes
from CUDA_HOME (or /usr/local/cuda); ctypes lets go of the GIL during the call, so T threads
compile in parallel as C threads would."""
import argparse
import ctypes
import multiprocessing as mp
import os
import random
import re
import sqlite3
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument("ini")
ap.add_argument("db")
ap.add_argument("--set", default="top:64")
ap.add_argument("--threads", default="16")
ap.add_argument("--procs", default="")
ap.add_argument("--repeat", type=int, default=1)
ap.add_argument("--arch", type=int, default=90)
ap.add_argument("--extra", default="", help="more NVRTC options, comma-separated")
a = ap.parse_args()


def source_of(ini):
    text = open(ini).read()
    d = os.path.dirname(os.path.abspath(ini))
    name = re.search(r"^name\s*=\s*(\S+)", text, re.M).group(1)
    m = re.search(r"^headers\s*=\s*(.+)$", text, re.M)
    parts = [h.strip() for h in m.group(1).split(",")] if m else []
    src = "".join(open(os.path.join(d, p)).read() for p in parts + [name + ".cu"])
    return name, src


NAME, SRC = source_of(a.ini)


def configs():
    con = sqlite3.connect(a.db)
    kind, _, n = a.set.partition(":")
    if kind == "top":
        rows = con.execute("select config, min(median_ms) m from trials where status='ok' "
                           "group by config order by m limit ?", (int(n),)).fetchall()
    else:
        rows = con.execute("select distinct config from trials where status in "
                           "('ok','wrong_result') order by config").fetchall()
        if kind == "random":
            rows = random.Random(1).sample(rows, int(n))
    return [r[0] for r in rows]


CONFIGS = configs()
_lib = None


def nvrtc():
    global _lib
    if _lib is None:
        home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
        for p in (os.environ.get("NVRTC_LIB", home + "/lib64/libnvrtc.so"),
                  home + "/lib64/libnvrtc.so.13",
                  "libnvrtc.so", "libnvrtc.so.13"):
            try:
                _lib = ctypes.CDLL(p)
                break
            except OSError:
                continue
        _lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    return _lib


def compile_one(config):
    lib = nvrtc()
    opts = ["-D" + kv for kv in config.split(",")]
    opts += ["--gpu-architecture=sm_%d" % a.arch, "-std=c++17", "-default-device", "-no-cache"]
    opts += [o for o in a.extra.split(",") if o]
    arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    prog = ctypes.c_void_p()
    t0 = time.perf_counter()
    r = lib.nvrtcCreateProgram(ctypes.byref(prog), SRC.encode(), NAME.encode(), 0, None, None)
    if r == 0:
        r = lib.nvrtcCompileProgram(prog, len(opts), arr)
        size = ctypes.c_size_t()
        if r == 0:
            lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
    ms = 1e3 * (time.perf_counter() - t0)
    if r:
        raise SystemExit("%s: NVRTC error %d (%s)" % (config, r, lib.nvrtcGetErrorString(r)))
    return ms


def drain(queue, times):
    while True:
        try:
            c = queue.pop()
        except IndexError:
            return
        times.append(compile_one(c))


def by_threads(t):
    queue, times = list(reversed(CONFIGS)), []
    ths = [threading.Thread(target=drain, args=(queue, times)) for _ in range(t)]
    t0 = time.perf_counter()
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    return time.perf_counter() - t0, times


def proc_main(q, out):
    # NVRTC loaded before the clock starts, as a pool's processes would have it; an error
    # goes back to the parent (which would otherwise wait for this process's times forever)
    try:
        nvrtc()
        out.put("ready")
        ts = []
        while True:
            c = q.get()
            if c is None:
                break
            ts.append(compile_one(c))
        out.put(ts)
    except BaseException as e:  # SystemExit from compile_one included
        out.put("error: %s" % e)


def by_procs(p):
    # spawned, not forked: a fork of a process whose threads have run NVRTC (the --threads
    # runs before) can inherit a lock that one of those threads held, and hang
    ctx = mp.get_context("spawn")
    q, out = ctx.Queue(), ctx.Queue()
    ps = [ctx.Process(target=proc_main, args=(q, out)) for _ in range(p)]
    for pr in ps:
        pr.start()
    for _ in ps:  # every process up, NVRTC loaded, before the clock starts
        got = out.get()
        if got != "ready":
            raise SystemExit("compile_scaling: a process failed: %s" % got)
    t0 = time.perf_counter()
    for c in CONFIGS:
        q.put(c)
    for _ in ps:
        q.put(None)
    times = []
    for _ in ps:
        got = out.get()
        if isinstance(got, str):
            raise SystemExit("compile_scaling: a process failed: %s" % got)
        times += got
    wall = time.perf_counter() - t0
    for pr in ps:
        pr.join()
    return wall, times


def report(kind, n, wall, times):
    print("%-8s %3d: %4d configs in %6.2f s: %6.2f configs/s, mean compile %5.0f ms, "
          "%.1f busy  [%s, %s]" % (kind, n, len(times), wall, len(times) / wall,
                                   sum(times) / len(times), sum(times) / 1e3 / wall, a.set,
                                   os.environ.get("GLIBC_TUNABLES", "default malloc")),
          flush=True)


if __name__ == "__main__":
    print("%s: %d configs (%s), %d CPUs" % (NAME, len(CONFIGS), a.set, os.cpu_count()))
    for _ in range(a.repeat):
        for t in [int(x) for x in a.threads.split(",") if x]:
            report("threads", t, *by_threads(t))
        for p in [int(x) for x in a.procs.split(",") if x]:
            report("procs", p, *by_procs(p))
