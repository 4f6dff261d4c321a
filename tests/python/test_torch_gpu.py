"""cutune's PyTorch side on a GPU (python/cutune/_torch.py): torch.ops.cutune.matmul in every
precision and both layouts against torch, F.linear and @ routed through cutune inside
cutune.use() only where a config is tuned and beats the recorded yardstick,
torch.compile(fullgraph=True) of a model calling the op, the op's gradients (eager and
compiled), record() then the recorded shapes tuned, and the bad input refused before a
launch.
Skipped without PyTorch and a CUDA device (run.py gpu exits 77). A fixture tunes a few
shapes with `cutune run` into a database of its own first (CUTUNE_EXE, else the command the
wheel carries)."""
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

import cutune  # noqa: E402

F = torch.nn.functional
M, N, K = 256, 512, 384
# (torch dtype, cutune dtype, layout, variant that tunes it)
CASES = [(torch.bfloat16, "bf16", "nt", "matmul_mma"), (torch.float16, "fp16", "nn", "matmul_mma"),
         (torch.float32, "tf32", "nt", "matmul_tf32"), (torch.float32, "fp32", "nn", "matmul_tiled")]
TOL = {"bf16": 2e-2, "fp16": 5e-3, "tf32": 5e-3, "fp32": 1e-4}


def cutune_cmd():
    exe = os.environ.get("CUTUNE_EXE")
    return [exe] if exe else [sys.executable, "-m", "cutune"]


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("torch_gpu") / "tuned.db")
    for _, kind, layout, variant in CASES:
        subprocess.run(cutune_cmd() + ["run", "matmul", "--device", "0", "--variant", variant,
                                       "--size", "%dx%dx%d" % (M, N, K), "--dtype", kind,
                                       "--layout", layout, "--budget", "12", "--db", db],
                       check=True, timeout=600)
    # the bf16 nt shape again with the bias epilogue: F.linear(x, W, b)'s own GEMM
    subprocess.run(cutune_cmd() + ["run", "matmul", "--device", "0", "--variant", "matmul_mma",
                                   "--size", "%dx%dx%d" % (M, N, K), "--dtype", "bf16",
                                   "--layout", "nt", "--epilogue", "bias", "--budget", "12",
                                   "--db", db],
                   check=True, timeout=600)
    return db


@pytest.fixture
def default_db(tuned, default_db_at):
    """The package's default handle on the tuned database."""
    return default_db_at(tuned)


def operands(dtype, layout):
    g = torch.Generator(device="cuda").manual_seed(7)
    a = torch.rand((M, K), device="cuda", generator=g, dtype=torch.float32).to(dtype) - 0.5
    w = torch.rand((N, K), device="cuda", generator=g, dtype=torch.float32).to(dtype) - 0.5
    b = w.t() if layout == "nt" else w.t().contiguous()
    return a, b


def ref(a, b):
    return (a.double() @ b.double())


def check_product(call, allow_tf32, dtype, kind, layout):
    """c = call(a, b) on fresh operands with torch's allow_tf32 set as given: its shape, type
    and error against the float64 product within kind's tolerance."""
    a, b = operands(dtype, layout)
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
    try:
        c = call(a, b)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
    torch.cuda.synchronize()
    assert c.shape == (M, N) and c.dtype == dtype
    err = ((c.double() - ref(a, b)).abs().max() / ref(a, b).abs().max()).item()
    assert err < TOL[kind], (kind, layout, err)


@pytest.mark.parametrize("dtype,kind,layout,variant", CASES)
def test_op_in_every_precision(default_db, dtype, kind, layout, variant):
    check_product(lambda a, b: torch.ops.cutune.matmul(a, b, ""), kind == "tf32", dtype, kind,
                  layout)


@pytest.mark.parametrize("dtype,kind,layout,variant", [CASES[0], CASES[3]])
def test_short_path_takes_the_tensors_own_type(default_db, dtype, kind, layout, variant):
    """cutune.matmul(a, b) on CUDA tensors (the short path): float32 is fp32 even where
    allow_tf32 is set, as Handle.matmul takes it (only fp32 nn is tuned at this shape, so a
    tf32 lookup would raise NotFoundError); bf16 is bf16."""
    check_product(cutune.matmul, True, dtype, kind, layout)


def planted_copy(tuned, tmp_path, yardstick_ms):
    """A copy of the tuned database whose yardsticks are gone, or all yardstick_ms."""
    import sqlite3
    db = str(tmp_path / "copy.db")
    src, dst = sqlite3.connect(tuned), sqlite3.connect(db)
    src.backup(dst)
    dst.execute("DELETE FROM yardsticks")
    if yardstick_ms is not None:
        dst.execute("INSERT INTO yardsticks (device_id, problem_id, name, median_ms)"
                    " SELECT device_id, problem_id, 'planted', ? FROM best", (yardstick_ms,))
    dst.commit()
    src.close()
    dst.close()
    return db


@pytest.mark.parametrize("yardstick_ms, routed", [(None, True), (1e3, True), (1e-6, False)])
def test_linear_routes_through_cutune_only_where_tuned_and_faster(tuned, tmp_path, monkeypatch,
                                                                  yardstick_ms, routed):
    """A tuned shape goes to cutune when no yardstick was recorded for it (deleted here) or
    its best beats the recorded one (one of 1 s planted), and stays torch's when the
    yardstick was faster (1 ns); an untuned shape is always torch's."""
    db = planted_copy(tuned, tmp_path, yardstick_ms)
    from cutune import _torch
    launched = []
    real = _torch._launch
    monkeypatch.setattr(_torch, "_launch", lambda *a: launched.append(a[2:7]) or real(*a))
    lin = torch.nn.Linear(K, N, device="cuda", dtype=torch.bfloat16, bias=False)
    x = torch.randn(2, M // 2, K, device="cuda", dtype=torch.bfloat16)
    want = lin(x)
    with cutune.use(db=db):
        got = lin(x)                          # M x N x K bf16 nt: tuned
        other = lin(x[:, :3].contiguous())    # 6 x N x K: not tuned, torch's
    torch.cuda.synchronize()
    assert launched == ([("bf16", "nt", M, N, K)] if routed else [])
    torch.testing.assert_close(got, want, rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(other, lin(x[:, :3].contiguous()))


def test_linear_with_bias_routes_the_bias_epilogue(tuned, tmp_path, monkeypatch):
    """F.linear(x, W, b) in bf16 is the "-bias" GEMM: inside use() it goes to cutune's kernel,
    which adds the bias (one launch, with the bias, no add after it), and matches the float64
    x W^T + b; where autograd records it, it goes there too, and the gradients of W and b
    are torch's F.linear's."""
    db = planted_copy(tuned, tmp_path, None)
    from cutune import _torch
    launched = []
    real = _torch._launch
    monkeypatch.setattr(_torch, "_launch",
                        lambda *a: launched.append(a[2:7] + (a[8] is not None,)) or real(*a))
    lin = torch.nn.Linear(K, N, device="cuda", dtype=torch.bfloat16)
    with torch.no_grad():
        lin.bias.uniform_(-1, 1)  # a bias that shows when it is missing or added twice
    x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    ref = (x.double() @ lin.weight.double().t() + lin.bias.double()).float()
    with cutune.use(db=db) as region:
        with torch.no_grad():
            got = lin(x)
        torch.cuda.synchronize()
        assert launched == [("bf16", "nt", M, N, K, True)] and region.routed == 1
        torch.testing.assert_close(got.float(), ref, rtol=2e-2, atol=2e-2)
        launched.clear()
        with_grad = lin(x)  # autograd records it: through an autograd Function
        assert launched == [("bf16", "nt", M, N, K, True)] and with_grad.requires_grad
        assert region.routed == 2
        with_grad.float().square().sum().backward()
    torch.cuda.synchronize()
    torch.testing.assert_close(with_grad.detach().float(), ref, rtol=2e-2, atol=2e-2)
    ours = (lin.weight.grad.float(), lin.bias.grad.float())
    lin.zero_grad()
    F.linear(x, lin.weight, lin.bias).float().square().sum().backward()  # torch's own
    # the same loss of two products within bf16's rounding: the gradients agree to it
    for o, t in zip(ours, (lin.weight.grad.float(), lin.bias.grad.float())):
        torch.testing.assert_close(o, t, rtol=3e-2, atol=3e-2 * t.abs().max().item())
    # cutune.matmul with bias= (Handle.matmul's path) launches the same config
    got2 = cutune.open(db).matmul(x, lin.weight.detach().t(), bias=lin.bias.detach())
    torch.cuda.synchronize()
    torch.testing.assert_close(got2.float(), ref, rtol=2e-2, atol=2e-2)
    with pytest.raises(ValueError, match="bias must be a vector of %d" % N):
        cutune.open(db).matmul(x, lin.weight.detach().t(), bias=lin.bias.detach()[:-1])


def test_op_adds_the_bias_and_its_gradient_is_torchs(default_db):
    """torch.ops.cutune.matmul(x, W.t(), "", b): the "-bias" config adds b (against float64
    x W^T + b), and with gradients x's, W's and b's match torch's F.linear's."""
    g = torch.Generator(device="cuda").manual_seed(3)
    x = torch.rand((M, K), device="cuda", generator=g).to(torch.bfloat16) - 0.5
    w = torch.rand((N, K), device="cuda", generator=g).to(torch.bfloat16) - 0.5
    b = (torch.rand((N,), device="cuda", generator=g) * 2 - 1).to(torch.bfloat16)
    ref = (x.double() @ w.double().t() + b.double()).float()
    y = torch.ops.cutune.matmul(x, w.t(), "", b)
    torch.cuda.synchronize()
    torch.testing.assert_close(y.float(), ref, rtol=2e-2, atol=2e-2)
    ours = [t.clone().requires_grad_() for t in (x, w, b)]
    theirs = [t.clone().requires_grad_() for t in (x, w, b)]
    # a loss linear in the output: the same gradient reaches both, so the inputs' must agree
    # to torch's own GEMMs' rounding (the op's backward is torch's GEMMs and a row sum)
    torch.ops.cutune.matmul(ours[0], ours[1].t(), "", ours[2]).float().sum().backward()
    F.linear(*theirs).float().sum().backward()
    for o, t in zip(ours, theirs):
        torch.testing.assert_close(o.grad.float(), t.grad.float(), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("yardstick_ms, routed", [(None, True), (1e-6, False)])
def test_swap_routes_linear_layers_as_use_does(tuned, tmp_path, monkeypatch, yardstick_ms,
                                               routed):
    """cutune.swap(model): a layer of the tuned shape goes to cutune (no yardstick recorded)
    or stays torch's (a 1 ns yardstick planted), another shape is torch's; the bias is added
    by the kernel (the shape's "-bias" config) and the output matches the layer's own;
    restore() gives the layer torch's path back."""
    db = planted_copy(tuned, tmp_path, yardstick_ms)
    from cutune import _torch
    launched = []
    real = _torch._launch
    monkeypatch.setattr(_torch, "_launch", lambda *a: launched.append(a[2:7]) or real(*a))
    lin = torch.nn.Linear(K, N, device="cuda", dtype=torch.bfloat16)
    with torch.no_grad():
        lin.bias.uniform_(-1, 1)  # a bias that shows when it is missing
    x = torch.randn(2, M // 2, K, device="cuda", dtype=torch.bfloat16)
    small = x[:, :3].contiguous()
    with torch.no_grad():
        want, want_small = lin(x), lin(small)
        with cutune.swap(lin, db=db) as sw:
            got = lin(x)          # M x N x K bf16 nt: tuned
            got_small = lin(small)  # 6 x N x K: not tuned, torch's
        torch.cuda.synchronize()
        assert launched == ([("bf16", "nt", M, N, K)] if routed else [])
        assert sw.routed == (1 if routed else 0)
        ref = (x.double() @ lin.weight.double().t() + lin.bias.double()).float()
        torch.testing.assert_close(got.float(), ref, rtol=2e-2, atol=2e-2)
        torch.testing.assert_close(got, want, rtol=2e-2, atol=2e-2)
        torch.testing.assert_close(got_small, want_small)
        launched.clear()
        lin(x)  # restored: torch's
        assert launched == []


@pytest.mark.parametrize("region", ["use", "swap"])
def test_a_gemm_for_autograd_needs_a_longer_yardstick(tuned, tmp_path, monkeypatch, region):
    """With a yardstick of 0.05 ms planted (over ROUTE_MIN_MS, under ROUTE_GRAD_FACTOR times
    it), a layer's call without gradients is routed and one that autograd records stays
    torch's: its call through an autograd Function costs more host time."""
    assert cutune.ROUTE_MIN_MS <= 0.05 < cutune.ROUTE_MIN_MS * cutune.ROUTE_GRAD_FACTOR
    db = planted_copy(tuned, tmp_path, 0.05)
    from cutune import _torch
    launched = []
    real = _torch._launch
    monkeypatch.setattr(_torch, "_launch", lambda *a: launched.append(a[2:7]) or real(*a))
    lin = torch.nn.Linear(K, N, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    ctx = cutune.use(db=db) if region == "use" else cutune.swap(lin, db=db)
    with ctx:
        with torch.no_grad():
            lin(x)
        y = lin(x)
    torch.cuda.synchronize()
    assert launched == [("bf16", "nt", M, N, K)] and y.requires_grad


@pytest.mark.parametrize("region", ["use", "swap"])
def test_a_decided_layer_takes_the_short_path(tuned, tmp_path, monkeypatch, region):
    """A layer's second call at a shape use() or swap() has decided goes the short way
    (_linear_routed): its weight and bias are Parameters, and the launch gets x and the
    weight as they are, with the output's shape, where the first call (which decides) went
    the general way; both outputs are right, with the bias and without a gradient."""
    db = planted_copy(tuned, tmp_path, None)
    from cutune import _torch
    launched = []
    real = _torch._launch
    monkeypatch.setattr(_torch, "_launch", lambda *a: launched.append(a) or real(*a))
    lin = torch.nn.Linear(K, N, device="cuda", dtype=torch.bfloat16)
    with torch.no_grad():
        lin.bias.uniform_(-1, 1)
    x = torch.randn(2, M // 2, K, device="cuda", dtype=torch.bfloat16)
    ref = (x.double() @ lin.weight.double().t() + lin.bias.double()).float()
    with torch.no_grad():
        ctx = cutune.use(db=db) if region == "use" else cutune.swap(lin, db=db)
        with ctx:
            outs = [lin(x), lin(x)]
    torch.cuda.synchronize()
    assert [a[2:7] for a in launched] == [("bf16", "nt", M, N, K)] * 2
    short = launched[1]
    assert short[0] is x and short[1] is lin.weight and short[8] is lin.bias
    assert tuple(short[9]) == (2, M // 2, N)
    for y in outs:
        assert y.shape == (2, M // 2, N)
        torch.testing.assert_close(y.float(), ref, rtol=2e-2, atol=2e-2)


def test_fullgraph_compile_runs_the_op(default_db):
    w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)

    def f(x):
        return torch.relu(torch.ops.cutune.matmul(x, w.t(), "bf16")) * 2

    x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    got = torch.compile(f, fullgraph=True)(x)
    torch.testing.assert_close(got, torch.relu(x @ w.t()) * 2, rtol=2e-2, atol=2e-2)


def test_op_gradients_are_torchs(default_db):
    """Where an input needs a gradient the op is recorded for autograd (its autograd
    kernel); elsewhere it launches at once (no_grad, inference_mode, tensors that need none):
    the same product each way, and torch's gradients, eagerly and through a compiled graph."""
    a, b = operands(torch.bfloat16, "nt")
    want = torch.ops.cutune.matmul(a, b, "bf16")
    assert not want.requires_grad
    with torch.no_grad():
        torch.testing.assert_close(torch.ops.cutune.matmul(a, b, "bf16"), want, rtol=0, atol=0)
    with torch.inference_mode():
        torch.testing.assert_close(torch.ops.cutune.matmul(a, b, "bf16"), want, rtol=0, atol=0)
    x = a.detach().clone().requires_grad_()
    w = b.t().detach().clone().requires_grad_()  # (N, K): F.linear's weight
    eager = lambda x, w: torch.ops.cutune.matmul(x, w.t(), "bf16")  # noqa: E731
    compiled = torch.compile(lambda x, w: torch.ops.cutune.matmul(x, w.t(), "bf16") * 2,
                             fullgraph=True)
    for f, scale in ((eager, 1), (compiled, 2)):
        y = f(x, w)
        assert y.grad_fn is not None
        g = torch.rand_like(y)
        gx, gw = torch.autograd.grad(y, (x, w), g)
        xr = x.detach().float().requires_grad_()
        wr = w.detach().float().requires_grad_()
        rx, rw = torch.autograd.grad((xr @ wr.t()) * scale, (xr, wr), g.float())
        torch.testing.assert_close(gx.float(), rx, rtol=3e-2, atol=3e-2)
        torch.testing.assert_close(gw.float(), rw, rtol=3e-2, atol=3e-2)


def test_record_then_tune_then_use(tmp_path):
    db = str(tmp_path / "record.db")
    lin = torch.nn.Linear(256, 128, bias=False, device="cuda", dtype=torch.bfloat16)
    lin_b = torch.nn.Linear(256, 96, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(64, 256, device="cuda", dtype=torch.bfloat16)
    with cutune.record(db=db):
        lin(x)
        lin_b(x)
    assert [r["size"] for r in cutune.recorded()] == ["64x128x256-bf16-nt",
                                                      "64x96x256-bf16-nt-bias"]
    assert all(r["pending"] for r in cutune.recorded())
    cutune.tune(db=db, device=0, args=["--variant", "matmul_mma", "--budget", "8"])
    with cutune.open(db) as h:
        assert h.lookup("matmul", "64x128x256-bf16-nt", device=0).match == "exact"
        assert h.lookup("matmul", "64x96x256-bf16-nt-bias", device=0).match == "exact"


def test_bad_input_raises_before_a_launch(default_db):
    a, b = operands(torch.bfloat16, "nn")
    with pytest.raises(ValueError, match="on cpu"):
        cutune.matmul_op(a.cpu(), b.cpu())
    with pytest.raises(ValueError, match="not contiguous"):
        cutune.matmul_op(a.t().contiguous().t(), b)
    with pytest.raises(TypeError, match="float64"):
        cutune.matmul_op(a.double(), b.double())
    if torch.cuda.device_count() > 1:
        with pytest.raises(ValueError, match="put both on one device"):
            cutune.matmul_op(a, b.to("cuda:1"))
    with pytest.raises(cutune.NotFoundError):  # fp16 nt at another shape: nothing tuned
        cutune.matmul_op(torch.ones(8, 8, device="cuda", dtype=torch.float16),
                         torch.ones(8, 8, device="cuda", dtype=torch.float16).t())
