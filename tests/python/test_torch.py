"""cutune's PyTorch side without a GPU (python/cutune/_torch.py): the cutune::matmul custom op
traced by torch.compile(fullgraph=True) through its fake implementation (on meta tensors),
the bad input it refuses before launching anything, use() leaving what it cannot take to
torch, record() writing a model's GEMMs (shape, dtype, layout) as pending requests, and
examples/torch_transformer.py --graph ending with the reason where a capture fails or routes
otherwise than the eager step. Skipped without PyTorch."""
import importlib.util
import os

import pytest

torch = pytest.importorskip("torch")
import cutune  # noqa: E402
import fixture_db  # noqa: E402

matmul_op = cutune.matmul_op  # imports cutune._torch, which registers torch.ops.cutune.matmul

F = torch.nn.functional


def pending(path):
    return fixture_db.query(path, "SELECT size, status, count FROM requests WHERE op = 'matmul'"
                                  " ORDER BY size")


def meta(*shape, dtype=torch.bfloat16):
    return torch.empty(*shape, device="meta", dtype=dtype)


def test_op_is_registered():
    assert torch.ops.cutune.matmul is not None
    assert cutune.matmul_op is not None


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_fullgraph_compile_traces_the_op(backend):
    graphs = []

    def capture(gm, example_inputs):
        graphs.append(gm)
        from torch._dynamo.backends.registry import lookup_backend
        return lookup_backend(backend)(gm, example_inputs)

    def block(x, w1, w2):
        h = torch.relu(torch.ops.cutune.matmul(x, w1.t(), "bf16"))  # F.linear's nt layout
        return cutune.matmul_op(h, w2, "")                           # nn

    fn = torch.compile(block, fullgraph=True, backend=capture)
    y = fn(meta(64, 128), meta(256, 128), meta(256, 32))
    assert y.shape == (64, 32) and y.dtype == torch.bfloat16
    assert len(graphs) == 1  # fullgraph: one graph, no break
    assert str(graphs[0].code).count("torch.ops.cutune.matmul") == 2


def test_op_has_a_gradient():
    a = meta(16, 32, dtype=torch.float32).requires_grad_()
    w = meta(8, 32, dtype=torch.float32).requires_grad_()
    y = cutune.matmul_op(a, w.t(), "fp32")
    y.sum().backward()
    assert a.grad.shape == a.shape and w.grad.shape == w.shape


def test_op_takes_a_bias():
    """The op's bias (F.linear's b): traced whole under torch.compile, its gradient the
    output's summed over rows; refused for float32 and for a row of the wrong length."""
    graphs = []

    def capture(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    fn = torch.compile(lambda x, w, b: torch.ops.cutune.matmul(x, w.t(), "", b), fullgraph=True,
                       backend=capture)
    y = fn(meta(64, 128), meta(256, 128), meta(256))
    assert y.shape == (64, 256) and len(graphs) == 1
    a, w = meta(16, 32).requires_grad_(), meta(8, 32).requires_grad_()
    bias = meta(8).requires_grad_()
    cutune.matmul_op(a, w.t(), "", bias).sum().backward()
    assert bias.grad.shape == (8,) and a.grad.shape == a.shape and w.grad.shape == w.shape
    with pytest.raises(ValueError, match="bias must be a 1-D tensor of 8"):
        cutune.matmul_op(meta(16, 32), meta(8, 32).t(), "", meta(7))
    with pytest.raises(TypeError, match="float16 and bfloat16 only"):
        cutune.matmul_op(meta(16, 32, dtype=torch.float32), meta(32, 8, dtype=torch.float32),
                         "", meta(8, dtype=torch.float32))


def test_fake_checks_shapes_and_dtypes():
    with pytest.raises(ValueError, match="a.shape\\[1\\] == b.shape\\[0\\]"):
        cutune.matmul_op(meta(4, 8), meta(4, 8))
    with pytest.raises(ValueError, match="does not fit"):
        cutune.matmul_op(meta(4, 8), meta(8, 4), "fp16")


@pytest.mark.parametrize("dtype,kind", [(torch.float32, "fp32"), (torch.float16, "fp16"),
                                        (torch.bfloat16, "bf16")])
def test_every_precision_traces(dtype, kind):
    y = cutune.matmul_op(meta(16, 32, dtype=dtype), meta(32, 8, dtype=dtype), kind)
    assert y.shape == (16, 8) and y.dtype == dtype
    if dtype == torch.float32:
        assert cutune.matmul_op(meta(16, 32, dtype=dtype), meta(8, 32, dtype=dtype).t(),
                                "tf32").shape == (16, 8)


def test_bad_input_is_refused_before_any_launch():
    a = torch.ones(4, 8)
    with pytest.raises(ValueError, match="is on cpu, not on a CUDA device"):
        cutune.matmul_op(a, torch.ones(8, 4))
    with pytest.raises(TypeError, match="no tuned kernel takes torch.float64"):
        cutune.matmul_op(a.double(), torch.ones(8, 4).double())
    with pytest.raises(TypeError, match="no tuned kernel takes torch.int32"):
        cutune.matmul_op(meta(4, 8, dtype=torch.int32), meta(8, 4, dtype=torch.int32))
    with pytest.raises(ValueError, match="a .* is not contiguous"):
        cutune.matmul_op(meta(8, 4).t(), meta(8, 4))
    with pytest.raises(ValueError, match="b .* is neither contiguous nor the transpose"):
        cutune.matmul_op(meta(4, 8), meta(8, 8)[:, ::2])
    with pytest.raises(TypeError, match="different dtypes"):
        cutune.matmul_op(meta(4, 8), meta(8, 4, dtype=torch.float16))
    with pytest.raises(ValueError, match="is on meta and b on cpu|is on cpu"):
        cutune.matmul_op(meta(4, 8), torch.ones(8, 4, dtype=torch.bfloat16))


def test_use_leaves_the_cpu_to_torch(fixture_path):
    torch.manual_seed(0)
    lin = torch.nn.Linear(32, 16)
    x = torch.randn(3, 5, 32)
    want = lin(x)
    with cutune.use(db=fixture_path):
        got = lin(x)
        got2 = torch.matmul(x, lin.weight.t())
        got3 = x.reshape(-1, 32) @ lin.weight.t()
    assert torch.equal(got, want)
    assert torch.allclose(got2, x @ lin.weight.t())
    assert got3.shape == (15, 16)


def test_swap_leaves_the_cpu_to_torch_and_restores(fixture_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 16), torch.nn.ReLU(),
                                torch.nn.Linear(16, 8, bias=False))
    x = torch.randn(3, 5, 32)
    want = model(x)
    sw = cutune.swap(model, db=fixture_path)
    assert len(sw.layers) == 2 and all("forward" in m.__dict__ for m in sw.layers)
    assert torch.equal(model(x), want)  # on the CPU: F.linear, as before
    assert sw.routed == 0
    sw.restore()
    assert not any("forward" in m.__dict__ for m in model.modules())
    assert torch.equal(model(x), want)
    with cutune.swap(model, db=fixture_path) as again:  # a restored model swaps again
        assert torch.equal(model(x), want)
    assert again.layers == [] and "forward" not in model[0].__dict__


def test_swap_refuses_what_it_cannot_route(fixture_path):
    with pytest.raises(TypeError, match="torch.nn.Module"):
        cutune.swap(lambda x: x)
    with pytest.raises(ValueError, match="no nn.Linear"):
        cutune.swap(torch.nn.ReLU())
    lin = torch.nn.Linear(4, 4)
    with cutune.swap(lin, db=fixture_path):
        with pytest.raises(ValueError, match="already swapped"):
            cutune.swap(torch.nn.Sequential(lin))
    cutune.swap(lin, db=fixture_path).restore()  # the first swap's end freed it
    lin.forward = lambda x: x  # a forward of its own: the swap would lose it
    with pytest.raises(ValueError, match="forward of its own"):
        cutune.swap(lin)


def test_use_counts_the_gemms_it_routes(fixture_path):
    lin = torch.nn.Linear(32, 16)
    with cutune.use(db=fixture_path) as region:
        assert region.routed == 0
        lin(torch.randn(4, 32))  # on the CPU: torch's
    assert region.routed == 0


def test_fullgraph_compile_inside_use(fixture_path):
    """The mode that use() enters is traced by Dynamo with no graph break: a shape not
    decided eagerly keeps torch's kernel inside the compiled region."""
    lin = torch.nn.Linear(16, 8)
    x = torch.randn(4, 16)
    f = torch.compile(lambda x: torch.relu(lin(x)) @ torch.ones(8, 2), fullgraph=True,
                      backend="eager")
    with cutune.use(db=fixture_path):
        y = f(x)
    assert torch.allclose(y, torch.relu(lin(x)) @ torch.ones(8, 2))


class TinyMLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(64, 256, bias=False)
        self.down = torch.nn.Linear(256, 64)

    def forward(self, x):
        h = F.gelu(self.up(x))
        return self.down(h) + x @ torch.eye(64, dtype=x.dtype)  # one nn GEMM too


def test_record_writes_the_models_gemms_as_pending_requests(fixture_path):
    model = TinyMLP().to(torch.bfloat16)
    x = torch.randn(2, 8, 64, dtype=torch.bfloat16)
    with cutune.record(db=fixture_path, device="h100") as region:
        model(x)
        model(x)
    rows = cutune.recorded()
    assert rows == region.recorded()
    sizes = {r["size"]: r for r in rows}
    # F.linear(x, W) is x @ W^T: layout nt; M is the flattened batch, 2 x 8; the database
    # writes the default layout, nn, as no suffix; F.linear(x, W, b) in bf16 is the GEMM with
    # the bias epilogue, "-bias"
    assert set(sizes) == {"16x256x64-bf16-nt", "16x64x256-bf16-nt-bias", "16x64x64-bf16"}
    assert sizes["16x64x64-bf16"]["layout"] == "nn"
    assert sizes["16x64x256-bf16-nt-bias"]["bias"] and not sizes["16x256x64-bf16-nt"]["bias"]
    assert all(r["calls"] == 2 and r["match"] == "miss" and r["pending"] for r in rows)
    assert [(s, st) for s, st, _ in pending(fixture_path)] == [
        ("16x256x64-bf16-nt", "pending"), ("16x64x256-bf16-nt-bias", "pending"),
        ("16x64x64-bf16", "pending")]


def test_record_float32_follows_the_tf32_switch(fixture_path):
    lin = torch.nn.Linear(16, 8, bias=False)
    old = torch.backends.cuda.matmul.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = True
        with cutune.record(db=fixture_path, device="h100"):
            lin(torch.randn(4, 16))
        assert [r["size"] for r in cutune.recorded()] == ["4x8x16-tf32-nt"]
        torch.backends.cuda.matmul.allow_tf32 = False
        with cutune.record(db=fixture_path, device="h100"):
            lin(torch.randn(4, 16))
        assert [r["size"] for r in cutune.recorded()] == ["4x8x16-nt"]  # fp32: no suffix
        assert cutune.recorded()[0]["dtype"] == "fp32"
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old


def test_record_on_the_cpu_needs_a_device(fixture_path):
    with pytest.raises(ValueError, match="name it: cutune.record\\(device="):
        with cutune.record(db=fixture_path):
            torch.nn.Linear(8, 8)(torch.randn(2, 8))


def test_record_under_compile_says_it_cannot(fixture_path):
    lin = torch.nn.Linear(8, 8)
    fn = torch.compile(lambda x: lin(x), backend="eager", fullgraph=True)
    with pytest.raises(Exception, match="cannot record inside torch.compile"):
        with cutune.record(db=fixture_path, device="h100"):
            fn(torch.randn(2, 8))


def test_tune_runs_cutune_run_pending(tmp_path, monkeypatch):
    log = tmp_path / "argv"
    fake = tmp_path / "cutune"
    fake.write_text("#!/bin/sh\necho \"$@\" > %s\nexit 3\n" % log)
    fake.chmod(0o755)
    monkeypatch.setenv("CUTUNE_EXE", str(fake))
    assert cutune.tune(db="x.db", device=0, check=False) == 3
    assert log.read_text().split() == ["run", "matmul", "--pending", "--device", "0", "--db",
                                       "x.db"]
    import subprocess
    with pytest.raises(subprocess.CalledProcessError):
        cutune.tune()


# ---- examples/torch_transformer.py --graph, its checks without a GPU ----------------------

def example():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "torch_transformer.py")
    spec = importlib.util.spec_from_file_location("torch_transformer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_exits_with_the_reason_a_capture_failed(monkeypatch):
    ex = example()

    def fails(fn, side):
        try:
            raise cutune.CutuneError("cudaMalloc: operation not permitted when stream is capturing")
        except cutune.CutuneError:  # as torch's capture ends after a failed call in it
            raise RuntimeError("operation failed due to a previous error during capture")

    monkeypatch.setattr(ex, "graphed", fails)
    with pytest.raises(SystemExit) as e:
        ex.captured(lambda: None, None, "the step inside cutune.use()")
    msg = e.value.code  # a message: exit status 1
    assert isinstance(msg, str) and "capturing the step inside cutune.use() failed" in msg
    assert "RuntimeError: operation failed due to a previous error" in msg
    assert "after CutuneError: cudaMalloc: operation not permitted" in msg


class _Region:
    def __init__(self, calls):
        self.routed, self.calls = 0, calls

    def __enter__(self):
        self.calls.append(self)
        return self

    def __exit__(self, *exc):
        self.calls.pop()


def test_example_exits_where_the_captured_step_routes_otherwise(monkeypatch):
    """A shape first met under capture stays torch's (use()): the graph would be another step
    than the one timed eagerly, and the example stops rather than time it."""
    ex = example()
    regions, capturing = [], []
    monkeypatch.setattr(ex.cutune, "use", lambda db, min_ms: _Region(regions))

    def step():  # two GEMMs routed a step, none while capturing
        if regions and not capturing:
            regions[-1].routed += 2

    def graphed(fn, side):
        for _ in range(ex.WARMUP):
            fn()
        capturing.append(1)
        out = fn()
        capturing.pop()
        return None, out

    monkeypatch.setattr(ex, "graphed", graphed)
    with pytest.raises(SystemExit, match="the captured step sent 0 GEMMs to cutune, the eager "
                                         "step 2"):
        ex.graph_steps(step, None, None)
