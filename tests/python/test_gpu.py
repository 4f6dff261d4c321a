"""The cutune Python module on a GPU: matmul on PyTorch (and CuPy) tensors against
torch.matmul, launch() with the op's arguments, the caller's stream, the bad input a
launch refuses, and a bf16 matmul captured in a CUDA graph (after a warm-up call, and as a
handle's first call) and replayed on new inputs. Skipped without PyTorch and a CUDA
device. A fixture tunes two matmul sizes with `cutune run` into a database of its own first
(CUTUNE_EXE, else the command the wheel carries)."""
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

import cutune  # noqa: E402

SIZES = ["256x384x512", "512x512x512"]


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("gpu") / "tuned.db")
    exe = os.environ.get("CUTUNE_EXE")
    cmd = [exe] if exe else [sys.executable, "-m", "cutune"]
    args = ["run", "matmul", "--device", "0", "--variant", "matmul_tiled", "--budget", "24",
            "--db", db]
    for s in SIZES:
        args += ["--size", s]
    subprocess.run(cmd + args, check=True, timeout=600)
    return db


def inputs(M, N, K):
    return torch.randn((M, K), device="cuda"), torch.randn((K, N), device="cuda")


def reference(a, b):
    return (a.double() @ b.double()).float()


def close_to(c, a, b):
    ref = reference(a, b)
    assert torch.isfinite(c).all()
    torch.testing.assert_close(c, ref, rtol=1e-4, atol=1e-4 * a.shape[1] ** 0.5)
    torch.testing.assert_close(c, torch.matmul(a, b), rtol=1e-4, atol=1e-4 * a.shape[1] ** 0.5)


@pytest.mark.parametrize("shape", [(256, 384, 512), (512, 512, 512), (300, 200, 100)])
def test_matmul_matches_torch(tuned, shape):
    M, N, K = shape
    g = torch.Generator(device="cuda").manual_seed(M + N + K)
    a = torch.rand((M, K), device="cuda", generator=g) * 2 - 1
    b = torch.rand((K, N), device="cuda", generator=g) * 2 - 1
    with cutune.open(tuned) as h:
        r = h.lookup("matmul", shape, device=0)
        assert r.match == ("exact" if "%dx%dx%d" % shape in SIZES else "nearest")
        c = h.matmul(a, b)
        assert c.shape == (M, N) and c.device == a.device and c.dtype == torch.float32
        torch.cuda.synchronize()
        close_to(c, a, b)
        out = torch.full((M, N), float("nan"), device="cuda")
        assert h.matmul(a, b, out=out) is out
        torch.cuda.synchronize()
        close_to(out, a, b)


def test_launch_with_the_ops_arguments(tuned):
    M, N, K = 256, 384, 512
    a, b = inputs(M, N, K)
    c = torch.full((M, N), float("nan"), device="cuda")
    with cutune.open(tuned) as h:
        r = h.launch("matmul", (M, N, K), a, b, c, M, N, K, None, device=0)
        assert r.match == "exact" and r.variant == "matmul_tiled"
        torch.cuda.synchronize()
        close_to(c, a, b)


def test_the_callers_stream(tuned):
    a, b = inputs(512, 512, 512)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with cutune.open(tuned) as h:
        with torch.cuda.stream(side):
            c = h.matmul(a, b)  # on `side`: the current stream
            d = torch.empty_like(c)
            h.matmul(a, b, out=d, stream=side.cuda_stream)
        side.synchronize()
        close_to(c, a, b)
        close_to(d, a, b)


def test_module_level_matmul_uses_the_default_database(tuned, monkeypatch):
    monkeypatch.setenv("CUTUNE_DB", tuned)
    a, b = inputs(512, 512, 512)
    c = cutune.matmul(a, b)
    torch.cuda.synchronize()
    close_to(c, a, b)


def test_cupy_arrays(tuned):
    cupy = pytest.importorskip("cupy")
    a = cupy.random.rand(256, 512, dtype=cupy.float32)
    b = cupy.random.rand(512, 384, dtype=cupy.float32)
    with cutune.open(tuned) as h:
        c = h.matmul(a, b)
        cupy.cuda.get_current_stream().synchronize()
    ta, tb = torch.as_tensor(a, device="cuda"), torch.as_tensor(b, device="cuda")
    close_to(torch.as_tensor(c, device="cuda"), ta, tb)


def test_bad_tensors_are_refused(tuned):
    a, b = inputs(256, 384, 512)
    with cutune.open(tuned) as h:
        with pytest.raises(ValueError, match="not on a CUDA device"):
            h.matmul(a.cpu(), b.cpu())
        with pytest.raises(ValueError, match="not C-contiguous"):
            h.matmul(torch.randn((512, 256), device="cuda").t(), b)
        with pytest.raises(TypeError, match="float32"):
            h.matmul(a.double(), b.double())
        with pytest.raises(cutune.NotFoundError, match="no CUDA device 99"):
            h.lookup("matmul", (256, 384, 512), device=99)
        if torch.cuda.device_count() > 1:
            with pytest.raises(ValueError, match="device 1"):
                h.matmul(a, b.to("cuda:1"))
            c = torch.empty((256, 384), device="cuda:1")
            with pytest.raises(ValueError, match="device 1"):
                h.launch("matmul", (256, 384, 512), a, b, c, 256, 384, 512, None, device=0)
    with pytest.raises(cutune.CutuneError, match="closed"):
        h.matmul(a, b)


def test_no_tuned_config_is_not_found(tuned):
    with cutune.open(tuned) as h:
        a = torch.randn((4, 4), device="cuda")
        with pytest.raises(cutune.NotFoundError, match="transpose"):
            h.launch("transpose", (4, 4), a, a, 4, 4)


# ---- the tensor cores: bf16 and fp16, and F.linear's layout (x @ W.T) without a copy ----

BF16_SIZE = (256, 384, 512)


@pytest.fixture(scope="module")
def tuned_bf16(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("gpu_bf16") / "tuned.db")
    exe = os.environ.get("CUTUNE_EXE")
    cmd = [exe] if exe else [sys.executable, "-m", "cutune"]
    subprocess.run(cmd + ["run", "matmul", "--device", "0", "--variant", "matmul_mma", "--budget",
                          "8", "--size", "%dx%dx%d-bf16-nt" % BF16_SIZE, "--db", db],
                   check=True, timeout=600)
    return db


def test_linear_in_bf16_reads_the_weight_in_place(tuned_bf16):
    M, N, K = BF16_SIZE
    x, w = bf16_operands(7)
    with cutune.open(tuned_bf16) as h:
        r = h.lookup("matmul", "%dx%dx%d-bf16-nt" % BF16_SIZE, device=0)
        assert r.match == "exact" and r.variant == "matmul_mma"
        c = h.matmul(x, w.t())  # w.t() is a view: the kernel reads w, layout nt
        torch.cuda.synchronize()
    assert c.dtype == torch.bfloat16 and c.shape == (M, N)
    bf16_close(c, x, w)
    torch.testing.assert_close(c, torch.nn.functional.linear(x, w), rtol=2 ** -7, atol=0.05)


def bf16_operands(seed):
    M, N, K = BF16_SIZE
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = (torch.rand((M, K), device="cuda", generator=g) * 2 - 1).bfloat16()
    w = (torch.rand((N, K), device="cuda", generator=g) * 2 - 1).bfloat16()
    return x, w


def bf16_close(c, x, w):
    """c (bf16) is x @ w.t() as torch.matmul computes it in float64, within one bf16
    rounding of a float32 sum (2^-8 relative) plus the sum's own error."""
    ref = x.double() @ w.double().t()
    err = (c.double() - ref).abs()
    assert torch.isfinite(c.float()).all()
    assert (err <= 2.0 ** -8 * ref.abs() + 1e-3 * x.shape[1] ** 0.5).all(), float(err.max())


def replayed_on_new_inputs(graph, x, w, c):
    """The graph replayed twice on new inputs copied into its captured x and w (c emptied
    first): each replay computes the product of what they hold then."""
    for seed in (21, 22):
        x2, w2 = bf16_operands(seed)
        x.copy_(x2)
        w.copy_(w2)
        c.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        bf16_close(c, x2, w2)


def test_bf16_matmul_in_a_cuda_graph(tuned_bf16, default_db_at):
    """cutune.matmul captured in a CUDA graph after a warm-up call on a side stream, as
    torch.cuda.graph asks; the graph launches cutune's kernel on the inputs of each replay."""
    default_db_at(tuned_bf16)
    x, w = bf16_operands(7)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        cutune.matmul(x, w.t())  # the warm-up: the kernel is loaded here
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        c = cutune.matmul(x, w.t())
    replayed_on_new_inputs(graph, x, w, c)
    del graph  # before the default handle, which holds its kernel, closes


def test_a_first_call_inside_a_capture(tuned_bf16):
    """No warm-up: a handle's first call, inside the capture (torch's default mode, which
    forbids loading a module on the capturing thread), loads the kernel outside the graph
    (libcutune relaxes the thread's capture mode for it) and captures the launch."""
    x, w = bf16_operands(7)
    with cutune.open(tuned_bf16) as other:
        other.matmul(x, w.t())  # CUDA's runtime started, this kernel loaded in another handle
        torch.cuda.synchronize()
    with cutune.open(tuned_bf16) as h:
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            c = h.matmul(x, w.t())
        replayed_on_new_inputs(graph, x, w, c)
        del graph


def test_a_dtype_or_layout_not_tuned_is_not_answered(tuned_bf16):
    M, N, K = BF16_SIZE
    x = torch.randn((M, K), device="cuda").bfloat16()
    w = torch.randn((K, N), device="cuda").bfloat16()  # nn: tuned only as nt
    with cutune.open(tuned_bf16) as h:
        with pytest.raises(cutune.CutuneError):
            h.matmul(x, w)
        with pytest.raises(cutune.CutuneError):
            h.matmul(x.half(), w.t().contiguous().half().t())  # fp16: never tuned
        with pytest.raises(TypeError, match="one type"):
            h.matmul(x, w.t().contiguous().half().t())


# ---- TMA: a matmul_wgmma config that loads through tensor maps cutune encodes per launch ----

TMA_CONFIG = ("BM=128,BN=128,BK=64,CONSUMERS=1,SCHEDULE=0,STAGES=3,CLUSTER_M=1,CLUSTER_N=1,"
              "GROUP_M=1,VEC=8,MINB=1,TMA=1")


@pytest.fixture(scope="module")
def tuned_tma(tmp_path_factory):
    if torch.cuda.get_device_capability(0) != (9, 0):
        pytest.skip("matmul_wgmma runs on compute capability 9.0 only")
    db = str(tmp_path_factory.mktemp("gpu_tma") / "tuned.db")
    exe = os.environ.get("CUTUNE_EXE")
    cmd = [exe] if exe else [sys.executable, "-m", "cutune"]
    subprocess.run(cmd + ["run", "matmul", "--device", "0", "--variant", "matmul_wgmma",
                          "--where", TMA_CONFIG, "--size", "%dx%dx%d-bf16-nt" % BF16_SIZE,
                          "--size", "%dx%dx%d-bf16-nn" % BF16_SIZE, "--db", db],
                   check=True, timeout=600)
    return db


def test_tma_config_first_call_inside_a_capture(tuned_tma):
    """A TMA config's first launch in the process, inside a CUDA graph capture (this test runs
    before the module's other TMA test): the driver's encoder is fetched and the kernel loaded
    with the capture mode relaxed, the launch is captured with its maps, and each replay reads
    the captured buffers' new contents."""
    x, w = bf16_operands(7)
    with cutune.open(tuned_tma) as h:
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            c = h.matmul(x, w.t())
        replayed_on_new_inputs(graph, x, w, c)
        del graph


@pytest.mark.parametrize("layout", ["nt", "nn"])
def test_tma_config_from_an_application(tuned_tma, layout):
    """The TMA config answers, and its launches are right on aligned operands and on an A one
    element off 16 bytes (cutune then gives the kernel zero maps, and it copies with
    cp.async): both against float64."""
    M, N, K = BF16_SIZE
    x, w = bf16_operands(9)
    b = w.t() if layout == "nt" else w.t().contiguous()
    flat = torch.empty(M * K + 1, device="cuda", dtype=torch.bfloat16)
    shifted = flat[1:].view(M, K)
    shifted.copy_(x)
    assert shifted.data_ptr() % 16 != 0
    with cutune.open(tuned_tma) as h:
        r = h.lookup("matmul", "%dx%dx%d-bf16-%s" % (M, N, K, layout), device=0)
        assert r.match == "exact" and r.variant == "matmul_wgmma" and r.config["TMA"] == 1
        for a in (x, shifted):
            c = h.matmul(a, b)
            torch.cuda.synchronize()
            bf16_close(c, x, w)


def test_tma_maps_follow_the_buffers(tuned_tma):
    """A shape called again keeps its prepared launch and the maps it encoded while the
    buffers' addresses are the same: launched on other buffers, then on the first ones with
    new contents, then with only B changed, each product is of the buffers given to that
    call (against float64), in nt and nn from one handle."""
    x1, w1 = bf16_operands(31)
    x2, w2 = bf16_operands(32)
    with cutune.open(tuned_tma) as h:
        for layout in ("nt", "nn"):
            def b_of(w):
                return w.t() if layout == "nt" else w.t().contiguous()
            b1, b2 = b_of(w1), b_of(w2)
            for x, w, b in ((x1, w1, b1), (x2, w2, b2), (x1, w1, b1), (x1, w2, b2)):
                c = h.matmul(x, b)
                torch.cuda.synchronize()
                bf16_close(c, x, w)
            x1.copy_(x2)  # the same address, new contents
            c = h.matmul(x1, b1)
            torch.cuda.synchronize()
            bf16_close(c, x2, w1)
            x1, _ = bf16_operands(31)
