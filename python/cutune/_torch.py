"""cutune inside PyTorch (imported on first use of these names from the cutune package):

    cutune.matmul_op(a, b)            # torch.ops.cutune.matmul: a torch.library op with a
                                      # fake implementation and gradients, so torch.compile
                                      # (fullgraph=True) traces it without a graph break
    with cutune.use():                # F.linear, torch.matmul, torch.mm and @ go through
        y = model(x)                  # cutune's tuned kernel where one is tuned for that
                                      # shape, element type and layout and beats cuBLAS's
                                      # recorded time by 3%, else through torch
    with cutune.record():             # the GEMMs the model meets (shape, dtype, layout) are
        model(x)                      # written to the database as pending requests
    cutune.recorded()                 # which: a list of dicts
    cutune.tune()                     # cutune run matmul --pending --device all

Precisions: float32 as "fp32", or "tf32" where torch.backends.cuda.matmul.allow_tf32 is
set; float16 "fp16"; bfloat16 "bf16". Layouts: "nn" (b is K x N, contiguous) and "nt" (b is
the transpose of a contiguous N x K tensor, as W.t() in F.linear(x, W)).
"""
import ctypes
import os
import subprocess
import threading

import torch
from torch.overrides import TorchFunctionMode

from . import ROUTE_GRAD_FACTOR, ROUTE_MARGIN, ROUTE_MIN_MS, _lib

_KINDS = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16"}
_BIAS_KINDS = ("fp16", "bf16")  # the matmul op's bias epilogue (plugins/matmul/matmul.h)
_tls = threading.local()


def _handle():
    from . import _default_handle
    return _default_handle()


def _kind_of(a, dtype):
    """The cutune element type for tensor a and the dtype asked for ("" = from a)."""
    if dtype and _KINDS.get(a.dtype) == dtype:
        return dtype
    kind = _KINDS.get(a.dtype)
    if kind is None:
        raise TypeError("cutune.matmul: no tuned kernel takes %s tensors: cutune's matmul takes "
                        "float32 (fp32, tf32), float16 or bfloat16" % a.dtype)
    if not dtype:
        return _route_kind(kind)
    if dtype != kind and not (dtype == "tf32" and kind == "fp32"):
        raise ValueError("cutune.matmul: dtype=%r does not fit %s tensors (float32 takes 'fp32' "
                         "or 'tf32')" % (dtype, a.dtype))
    return dtype


def _layout_of(b):
    """"nn" for a contiguous K x N b, "nt" for the transpose of a contiguous N x K one, else
    None."""
    if b.is_contiguous():
        return "nn"
    K, N = b.shape
    if b.stride(0) == 1 and b.stride(1) == K:
        return "nt"
    return None


def _short(a, b):
    """(layout, M, N, K) of a @ b in the common case, tested in few calls (a per-call cost:
    bench/torch_overhead.py): two 2-D tensors of one dtype on one CUDA device, a contiguous,
    b contiguous or a contiguous tensor's transpose, no dimension 0. None where _check's
    closer look (or Handle.matmul's own) must decide."""
    if (a.is_cuda and b.is_cuda and a.dim() == 2 and b.dim() == 2 and a.dtype == b.dtype
            and a.get_device() == b.get_device() and a.is_contiguous()):
        M, K = a.shape
        K2, N = b.shape
        layout = "nn" if b.is_contiguous() else _layout_of(b)
        if K == K2 and layout and M and N and K:
            return layout, M, N, K
    return None


def _check(a, b, dtype):
    """Everything about a and b that cutune needs, checked before anything is launched: the
    element type name, the layout and (M, N, K). Raises TypeError or ValueError."""
    short = _short(a, b)
    if short:
        return (_kind_of(a, dtype),) + short
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        raise TypeError("cutune.matmul: needs two torch tensors; got %s and %s"
                        % (type(a).__name__, type(b).__name__))
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError("cutune.matmul: needs 2-D tensors with a.shape[1] == b.shape[0]; got %s "
                         "and %s" % (tuple(a.shape), tuple(b.shape)))
    if a.dtype != b.dtype:
        raise TypeError("cutune.matmul: a and b have different dtypes (%s and %s)"
                        % (a.dtype, b.dtype))
    kind = _kind_of(a, dtype)
    for name, t in (("a", a), ("b", b)):
        if t.device.type not in ("cuda", "meta"):
            raise ValueError("cutune.matmul: %s is on %s, not on a CUDA device; move it there "
                             "first (t.cuda())" % (name, t.device))
    if a.device != b.device:
        raise ValueError("cutune.matmul: a is on %s and b on %s; put both on one device"
                         % (a.device, b.device))
    if not a.is_contiguous():
        raise ValueError("cutune.matmul: a (shape %s, strides %s) is not contiguous; pass "
                         "a.contiguous()" % (tuple(a.shape), a.stride()))
    layout = _layout_of(b)
    if layout is None:
        raise ValueError("cutune.matmul: b (shape %s, strides %s) is neither contiguous nor the "
                         "transpose of a contiguous tensor; pass b.contiguous()"
                         % (tuple(b.shape), b.stride()))
    M, K = a.shape
    N = b.shape[1]
    if M == 0 or N == 0 or K == 0:
        raise ValueError("cutune.matmul: empty matrices (%d x %d times %d x %d)" % (M, K, K, N))
    return kind, layout, M, N, K


class _Call:
    """The per-thread state of the launch path, made once: the C function, an error record
    and its pointer, so that a call allocates nothing but its output."""
    __slots__ = ("fn", "fn_bias", "h", "err", "err_ref", "stream")

    def __init__(self, h):
        self.fn = _lib.lib().cutune_gemm_on
        self.fn_bias = _lib.lib().cutune_gemm_bias_on
        self.h = h._handle()
        self.err = _lib.Error()
        self.err_ref = ctypes.byref(self.err)
        self.stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _call(handle=None):
    """The launch state of this thread for `handle` (None: the default database's)."""
    calls = getattr(_tls, "calls", None)
    if calls is None:
        calls = _tls.calls = {}
    c = calls.get(handle)
    if c is None or not c.h.value:  # first call, or the handle was closed
        c = calls[handle] = _Call(handle or _handle())
    return c


_DTYPE_CODES = _lib.DTYPES
_LAYOUT_CODES = _lib.LAYOUTS


def _launch(a, b, kind, layout, M, N, K, handle=None, bias=None, shape=None):
    """a @ b (+ bias: a tensor _bias_ok took, through the size's "-bias" config) into a new
    tensor of `shape` (M x N when None), launched on the current stream. Only the tensors'
    pointers are read: a may be any contiguous tensor of M x K elements, and b for layout nt
    the N x K weight itself (its transpose's pointer)."""
    c = _call(handle)
    out = a.new_empty(shape or (M, N))
    dev = a.get_device()
    stream = c.stream(dev) if c.stream else torch.cuda.current_stream(dev).cuda_stream
    if bias is not None:
        rc = c.fn_bias(c.h, dev, _DTYPE_CODES[kind], _LAYOUT_CODES[layout], a.data_ptr(),
                       b.data_ptr(), bias.data_ptr(), out.data_ptr(), M, N, K, stream, None,
                       c.err_ref)
    else:
        rc = c.fn(c.h, dev, _DTYPE_CODES[kind], _LAYOUT_CODES[layout], a.data_ptr(),
                  b.data_ptr(), out.data_ptr(), M, N, K, stream, None, c.err_ref)
    if rc:
        from . import _raise
        _raise(rc, c.err)
    return out


# torch.ops.cutune.matmul, defined with torch.library.Library rather than custom_op: the
# autograd kernel below calls the launch itself where nothing needs the dispatcher's layers,
# where custom_op's generated one redispatches every call below autograd through Python
# (about 10 us of the op's cost on the host: bench/torch_overhead.py).
_LIB = torch.library.Library("cutune", "DEF")
_LIB.define("matmul(Tensor a, Tensor b, str dtype='', Tensor? bias=None) -> Tensor")


def _check_bias(bias, a, N, kind):
    """A bias the kernel can add (the size's "-bias" config): fp16 or bf16, a contiguous row
    of N of a's dtype on a's device. Raises TypeError or ValueError."""
    if kind not in _BIAS_KINDS:
        raise TypeError("cutune.matmul: the kernel adds a bias in float16 and bfloat16 only; "
                        "for %s add it to the product yourself" % kind)
    if not isinstance(bias, torch.Tensor) or bias.dim() != 1 or bias.shape[0] != N:
        raise ValueError("cutune.matmul: bias must be a 1-D tensor of %d (one per column of "
                         "the product); got %s" % (N, tuple(getattr(bias, "shape", ())) or
                                                  type(bias).__name__))
    if bias.dtype != a.dtype or bias.device != a.device or not bias.is_contiguous():
        raise ValueError("cutune.matmul: bias must be contiguous, of a's dtype (%s) on a's "
                         "device (%s); got %s on %s" % (a.dtype, a.device, bias.dtype,
                                                        bias.device))


def _matmul_impl(a, b, dtype="", bias=None):
    """a @ b (+ bias) with cutune's best tuned kernel for this shape, element type and layout
    (and "-bias" with a bias) on a's CUDA device, on the current stream. dtype: "" (from the
    tensors; float32 is "tf32" where torch.backends.cuda.matmul.allow_tf32 is set), "fp32",
    "tf32", "fp16" or "bf16". bias: a row of N added by the kernel (fp16 and bf16). Raises
    TypeError / ValueError for tensors it cannot take (on the CPU, on two devices, not
    contiguous, of another dtype) and cutune.NotFoundError where nothing is tuned; in neither
    case is anything launched."""
    kind, layout, M, N, K = _check(a, b, dtype)
    if bias is not None:
        _check_bias(bias, a, N, kind)
    return _launch(a, b, kind, layout, M, N, K, None, bias)


# every device's kernel (the CPU's refuses its tensors as the op's checks say), but meta's
_LIB.impl("matmul", _matmul_impl, "CompositeExplicitAutograd")


def _matmul_fake(a, b, dtype="", bias=None):
    kind, _, _, N, _ = _check(a, b, dtype)
    if bias is not None:
        _check_bias(bias, a, N, kind)
    return a.new_empty((a.shape[0], b.shape[1]))


torch.library.register_fake("cutune::matmul", _matmul_fake, lib=_LIB)
_OP = torch.ops.cutune.matmul.default
matmul_op = torch.ops.cutune.matmul


def _backward(ctx, grad):
    # the gradients through torch's own GEMMs: what cutune tunes is the forward's shapes
    a, b = ctx.saved_tensors
    return grad @ b.t(), a.t() @ grad, None


class _OpMatmul(torch.autograd.Function):
    """The op where autograd records it: the product below autograd, torch's gradients (the
    bias's: the sum of the output's gradient over its rows). direct: _direct(a, b, bias), as
    the caller found it (the function itself where it holds, else the op below autograd)."""

    @staticmethod
    def forward(ctx, a, b, dtype, bias, direct):
        ctx.save_for_backward(a, b)
        if direct:
            return _matmul_impl(a, b, dtype, bias)
        with torch._C._AutoDispatchBelowAutograd():
            return _OP(a, b, dtype, bias)

    @staticmethod
    def backward(ctx, grad):
        ga, gb, _ = _backward(ctx, grad)
        gbias = grad.sum(0) if ctx.needs_input_grad[3] else None
        return ga, gb, None, gbias, None


# plain tensors: a layer's weight and bias are Parameters, which change nothing of a
# tensor's behaviour (no __torch_function__ of their own); any other subclass goes the
# general way, through the dispatcher
_PLAIN = (torch.Tensor, torch.nn.Parameter)
_modes = getattr(torch._C, "_len_torch_dispatch_stack", None)
_transforms = getattr(getattr(torch._C, "_functorch", None), "peek_interpreter_stack", None)


def _direct(a, b, bias):
    """Whether the op's function may run without the dispatcher: plain CUDA tensors outside
    any dispatch mode or functorch transform (tracing, FakeTensor, vmap)."""
    return (type(a) in _PLAIN and type(b) in _PLAIN and a.is_cuda and _modes is not None
            and not _modes() and _transforms is not None and _transforms() is None
            and (bias is None or type(bias) in _PLAIN))


def _matmul_autograd(a, b, dtype="", bias=None):
    """The op's autograd kernel: recorded for autograd where an input needs a gradient; else
    launched at once where _direct holds, and redispatched below autograd otherwise."""
    if torch.is_grad_enabled() and (a.requires_grad or b.requires_grad or
                                    (bias is not None and bias.requires_grad)):
        return _OpMatmul.apply(a, b, dtype, bias, _direct(a, b, bias))
    if _direct(a, b, bias):
        return _matmul_impl(a, b, dtype, bias)
    with torch._C._AutoDispatchBelowAutograd():
        return _OP(a, b, dtype, bias)


_LIB.impl("matmul", _matmul_autograd, "Autograd")


class _HandleMatmul(torch.autograd.Function):
    """a @ b (+ bias) from a given handle's database, with the op's gradients (_backward,
    and the bias's: the output's summed over rows): where autograd must see a GEMM that
    cutune.use(db=...) or cutune.swap(model, db=...) routed, eagerly."""

    @staticmethod
    def forward(ctx, a, b, dtype, handle, bias):
        ctx.save_for_backward(a, b)
        kind, layout, M, N, K = _check(a, b, dtype)
        if bias is not None:
            _check_bias(bias, a, N, kind)
        return _launch(a, b, kind, layout, M, N, K, handle, bias)

    @staticmethod
    def backward(ctx, grad):
        ga, gb, _ = _backward(ctx, grad)
        return ga, gb, None, None, grad.sum(0) if ctx.needs_input_grad[4] else None


def matmul_fast(a, b, dtype="", handle=None, bias=None):
    """torch.ops.cutune.matmul(a, b, dtype, bias) without PyTorch's dispatcher where it is
    not needed: in eager mode with no gradient to record the op's own function is called
    directly, which saves the dispatcher's cost of an op implemented in Python on every
    call; under torch.compile the op itself (which launches from the default database);
    where autograd must see it, the op, or with a handle an autograd Function that launches
    from it.
    handle: a cutune Handle (None: the default database's). bias: a row of N that the
    kernel adds (fp16 and bf16: the size's "-bias" config)."""
    if _is_compiling():
        return torch.ops.cutune.matmul(a, b, dtype, bias)
    if torch.is_grad_enabled() and (a.requires_grad or b.requires_grad or
                                    (bias is not None and bias.requires_grad)):
        if handle is not None:
            return _HandleMatmul.apply(a, b, dtype, handle, bias)
        if _direct(a, b, bias):  # the op's autograd kernel's work, without the dispatcher
            return _OpMatmul.apply(a, b, dtype, bias, True)
        return torch.ops.cutune.matmul(a, b, dtype, bias)
    kind, layout, M, N, K = _check(a, b, dtype)
    if bias is not None:
        _check_bias(bias, a, N, kind)
    return _launch(a, b, kind, layout, M, N, K, handle, bias)


_is_compiling = torch.compiler.is_compiling


def matmul_tensors(a, b, dtype=None):
    """cutune.matmul on two CUDA tensors: as Handle.matmul, dtype None is the tensors' own
    type (float32 is "fp32", whatever allow_tf32 says), through matmul_fast."""
    return matmul_fast(a, b, dtype or _KINDS.get(a.dtype, ""))


def handle_matmul(handle, a, b, dtype=None, bias=None):
    """Handle.matmul(a, b, dtype=, bias=) on plain torch tensors, launched at once where
    nothing needs autograd, _short holds and a bias is one _bias_ok takes; None where
    Handle.matmul's own checks must decide (and word the error)."""
    if type(a) not in _PLAIN or type(b) not in _PLAIN or \
            (bias is not None and type(bias) not in _PLAIN):
        return None
    short = _short(a, b)
    kind = dtype or _KINDS.get(a.dtype)
    if (short is None or kind is None
            or _KINDS.get(a.dtype) != (kind if kind != "tf32" else "fp32")):
        return None
    layout, M, N, K = short
    if bias is not None:
        if not _bias_ok(bias, a, b, N, kind):
            return None
    elif torch.is_grad_enabled() and (a.requires_grad or b.requires_grad):
        return None
    return _launch(a, b, kind, layout, M, N, K, handle, bias)


# ---- routing F.linear and torch.matmul ---------------------------------------------------
_LINEAR = {torch.nn.functional.linear, torch._C._nn.linear}
_MATMUL = {torch.matmul, torch.mm, torch.Tensor.__matmul__, torch.Tensor.matmul,
           torch.Tensor.mm}


def _route_kind(kind):
    """The precision a GEMM on tensors of `kind` is tuned in: fp32 is "tf32" where torch lets
    its own matmuls use TF32 (torch.backends.cuda.matmul.allow_tf32)."""
    if kind == "fp32" and torch.backends.cuda.matmul.allow_tf32:
        return "tf32"
    return kind


def _add_bias(out, bias):
    """out + bias (out when bias is None): one more kernel, in place where autograd does not
    need the product. For a bias the GEMM's kernel does not take (fp32 and tf32); fp16 and
    bf16 take theirs in the kernel (_bias_ok)."""
    if bias is None:
        return out
    return out + bias if out.requires_grad else out.add_(bias)


def _bias_fits(bias, a, N, kind):
    """Whether the kernel of a @ b can add `bias` itself (the size's "-bias" config): a
    contiguous row of N of a's dtype on a's device, for fp16 or bf16."""
    return (kind in _BIAS_KINDS and isinstance(bias, torch.Tensor) and bias.dim() == 1
            and bias.shape[0] == N and bias.dtype == a.dtype and bias.device == a.device
            and bias.is_contiguous())


def _bias_ok(bias, a, b, N, kind):
    """_bias_fits, with no gradient to record (grad mode off, or none of a, b and the bias
    needs one: a layer's parameters need one even under no_grad, where none is recorded):
    the launch at once, with no autograd Function."""
    return (_bias_fits(bias, a, N, kind)
            and not (torch.is_grad_enabled()
                     and (a.requires_grad or b.requires_grad or bias.requires_grad)))


def _gemm_of(func, args, kwargs):
    """(a2d, b, bias, out_shape) for a call cutune can take, else None: F.linear(x, W, bias)
    with x of any rank (..., K) and W (N, K); matmul/mm/@ of (..., K) by a 2-D (K, N)."""
    if func in _LINEAR:
        x = args[0] if args else kwargs.get("input")
        w = args[1] if len(args) > 1 else kwargs.get("weight")
        bias = args[2] if len(args) > 2 else kwargs.get("bias")
        if not isinstance(x, torch.Tensor) or not isinstance(w, torch.Tensor) or w.dim() != 2:
            return None
        b = w.t()
    elif func in _MATMUL and len(args) == 2 and not kwargs:
        x, b = args
        bias = None
        if not isinstance(x, torch.Tensor) or not isinstance(b, torch.Tensor) or b.dim() != 2:
            return None
    else:
        return None
    if x.dim() < 2 or x.shape[-1] != b.shape[0] or not x.is_contiguous():
        return None
    a = x if x.dim() == 2 else x.reshape(-1, x.shape[-1])
    return a, b, bias, tuple(x.shape[:-1]) + (b.shape[1],)


def _linear_routed(router, db, x, w, bias=None):
    """F.linear(x, w, bias) as use() and swap() route it, in its common case: plain CUDA
    tensors of a routed type, x contiguous of any rank (..., K), w a contiguous N x K weight
    (layout nt), and a shape the router has decided. Returns the output of cutune's kernel
    (with the bias where the kernel adds it), False where the router chose torch's, None
    where the general path must decide or launch (a shape met first, a call for autograd to
    record, anything else). It makes no view of x or w (the kernel reads their pointers) and
    no reshape of the output: that is most of what a routed call costs beyond torch's own
    (bench/torch_overhead.py)."""
    if type(x) not in _PLAIN or type(w) not in _PLAIN or not x.is_cuda:
        return None
    kind = _KINDS.get(x.dtype)
    if (kind is None or w.dtype != x.dtype or w.dim() != 2 or x.dim() < 2
            or not x.is_contiguous() or not w.is_contiguous()):
        return None
    N, K = w.shape
    shape = x.shape
    if shape[-1] != K or not K or not N:
        return None
    M = x.numel() // K
    if not M:
        return None
    if kind == "fp32":
        kind = _route_kind(kind)
    if bias is not None and (type(bias) not in _PLAIN or not _bias_fits(bias, x, N, kind)):
        return None  # the general path: fp32's bias added after the GEMM, or torch's
    dev = x.get_device()
    if w.get_device() != dev:
        return None
    grad = torch.is_grad_enabled() and (x.requires_grad or w.requires_grad or
                                        (bias is not None and bias.requires_grad))
    hit = router.decided.get((M, N, K, kind, "nt", dev, bias is not None, grad))
    if hit is None or (hit and grad):
        return None  # not decided yet, or routed through an autograd Function
    if not hit:
        return False  # torch's
    return _launch(x, w, kind, "nt", M, N, K, db, bias, shape[:-1] + (N,))


class _Router:
    """Whether a GEMM goes to cutune's kernel, decided once per shape, element type, layout
    and device (use() and swap())."""

    def __init__(self, db, margin, min_ms):
        self.db, self.margin, self.min_ms = db, margin, min_ms
        # (M, N, K, kind, layout, device, bias, grad) -> True: cutune's kernel is faster
        self.decided = {}

    def tuned(self, M, N, K, kind, layout, device, bias=False, grad=False):
        """bias: the kernel adds the bias, the size's "-bias" config against cuBLASLt's bias
        epilogue. grad: autograd records the call, whose host time is larger (an autograd
        Function): the yardstick must take ROUTE_GRAD_FACTOR times min_ms."""
        key = (M, N, K, kind, layout, device.index, bias, grad)
        hit = self.decided.get(key)
        if hit is None:
            if torch.compiler.is_compiling():
                return False  # decided in eager runs only; a compiled region keeps torch's
            if torch.cuda.is_current_stream_capturing():
                return False  # the first launch may compile and load a kernel: not in a graph
            size = "%dx%dx%d-%s-%s%s" % (M, N, K, kind, layout, "-bias" if bias else "")
            h = _handle() if self.db is None else self.db
            # tuned for this shape (on this GPU or its model) and faster than the cuBLAS(Lt)
            # time recorded beside it by the margin (cutune.prefer_tuned); else torch's
            min_ms = self.min_ms * (ROUTE_GRAD_FACTOR if grad else 1)
            hit = h.prefers_tuned("matmul", size, device.index or 0, self.margin, min_ms)
            self.decided[key] = hit
        return hit


class _Mode(TorchFunctionMode):
    """Sees every torch function of the region: GEMMs go to cutune (use) and are written down
    (record)."""

    def __init__(self, route, recorder, db, device, margin, min_ms=ROUTE_MIN_MS):
        super().__init__()
        self.route, self.recorder = route, recorder
        self.db, self.device = db, device
        self.router = _Router(db, margin, min_ms)
        self.routed = 0  # the GEMMs sent to cutune
        # F.linear's short path (_linear_routed) where nothing is recorded
        self.fast = route and recorder is None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func in _LINEAR:
            if self.fast and not kwargs and 1 < len(args) < 4:
                out = _linear_routed(self.router, self.db, *args)
                if out is False:
                    return func(*args)
                if out is not None:
                    self.routed += 1
                    return out
        elif func not in _MATMUL:
            return func(*args, **kwargs) if kwargs else func(*args)
        kwargs = kwargs or {}
        g = _gemm_of(func, args, kwargs)
        if g is None:
            return func(*args, **kwargs)
        a, b, bias, shape = g
        kind = _KINDS.get(a.dtype)
        layout = _layout_of(b) if kind and a.dtype == b.dtype else None
        if layout is None:
            return func(*args, **kwargs)
        kind = _route_kind(kind)
        M, K = a.shape
        N = b.shape[1]
        # a bias in fp16 or bf16 is the GEMM's own ("-bias"): recorded, tuned and routed so
        fused = bias is not None and kind in _BIAS_KINDS
        if self.recorder is not None:
            self.recorder.add(M, N, K, kind, layout, a.device, fused)
        if not self.route or a.device.type != "cuda" or b.device != a.device or 0 in (M, N, K):
            return func(*args, **kwargs)
        if fused and not _bias_fits(bias, a, N, kind):
            return func(*args, **kwargs)  # a bias the kernel cannot take: torch's fused GEMM
        grad = torch.is_grad_enabled() and (a.requires_grad or b.requires_grad or
                                            (fused and bias.requires_grad))
        if not self.router.tuned(M, N, K, kind, layout, a.device, fused, grad):
            return func(*args, **kwargs)
        if grad:
            out = matmul_fast(a, b, kind, self.db, bias if fused else None)  # for autograd
        else:  # what _check would ask of the tensors is known here: launch
            out = _launch(a, b, kind, layout, M, N, K, self.db, bias if fused else None)
        if len(shape) != 2:
            out = out.reshape(shape)
        self.routed += 1
        return out if fused else _add_bias(out, bias)


class _Recorder:
    """The GEMMs met: (M, N, K, kind, layout, device, bias) -> calls."""

    def __init__(self, handle, device):
        self.handle, self.device = handle, device
        self.seen = {}
        self.mu = threading.Lock()

    def add(self, M, N, K, kind, layout, dev, bias=False):
        if torch.compiler.is_compiling():
            raise RuntimeError(
                "cutune.record(): cannot record inside torch.compile: a compiled region calls no "
                "Python per GEMM. Run the model eagerly once inside cutune.record() (before "
                "compiling it, or with torch.compiler.disable), then compile it")
        target = self.device
        if target is None:
            if dev.type != "cuda":
                raise ValueError(
                    "cutune.record(): a %dx%dx%d GEMM ran on %s; record on the GPU the kernels "
                    "are for, or name it: cutune.record(device='H100') (a name or UUID in the "
                    "database)" % (M, N, K, dev))
            target = dev.index if dev.index is not None else torch.cuda.current_device()
        key = (M, N, K, kind, layout, target, bias)
        with self.mu:
            self.seen[key] = self.seen.get(key, 0) + 1

    def write(self):
        """Each shape once into the database's requests (a lookup records a miss as pending),
        returning the list of dicts that recorded() shows."""
        rows = []
        for (M, N, K, kind, layout, target, bias), calls in sorted(self.seen.items(), key=str):
            size = "%dx%dx%d-%s-%s%s" % (M, N, K, kind, layout, "-bias" if bias else "")
            r = self.handle.lookup("matmul", size, device=target)
            rows.append({"op": "matmul", "size": r.size or size, "M": M, "N": N, "K": K,
                         "dtype": kind, "layout": layout, "bias": bias, "device": target,
                         "calls": calls, "match": r.match,
                         "pending": r.match != "exact" and r.recorded})
        return rows


_recorded = []


class _Region:
    def __init__(self, route, record, db, device, margin=ROUTE_MARGIN, min_ms=ROUTE_MIN_MS):
        self.route, self.record, self.db, self.device = route, record, db, device
        self.margin, self.min_ms = margin, min_ms
        self.mode = None

    def __enter__(self):
        from . import Handle
        h = None
        if self.record and not isinstance(self.db, Handle):
            from . import create_db
            create_db(self.db)  # a fresh machine has no database yet: the requests need one
        if self.db is not None:
            h = self.db if isinstance(self.db, Handle) else Handle(self.db)
        rec = _Recorder(h or _handle(), self.device) if self.record else None
        self.mode = _Mode(self.route, rec, h, self.device, self.margin, self.min_ms)
        self.mode.__enter__()
        return self

    def __exit__(self, *exc):
        self.mode.__exit__(*exc)
        rec = self.mode.recorder
        if rec is not None and exc[0] is None:
            rows = rec.write()
            self.rows = rows
            _recorded[:] = rows
        return False

    def recorded(self):
        return list(getattr(self, "rows", []))

    @property
    def routed(self):
        """How many GEMMs the region has sent to cutune's kernels so far."""
        return self.mode.routed if self.mode else 0


def use(db=None, margin=ROUTE_MARGIN, min_ms=ROUTE_MIN_MS):
    """A region in which F.linear (nn.Linear), torch.matmul, torch.mm and @ run cutune's tuned
    kernel where the database has one for that shape, element type and layout on the tensors'
    GPU that beats the vendor yardstick recorded for it (cuBLASLt or cuBLAS, what torch
    calls) by `margin` (tuned ms <= yardstick ms / (1 + margin); cutune.prefer_tuned), and
    torch's own otherwise (or where the tensors are on the CPU, of another dtype, not
    contiguous, batched on both sides). The margin, 3% by default, pays for what a call
    through cutune costs more than torch's: some microseconds on the host per call; and a
    GEMM whose yardstick takes under
    `min_ms` stays torch's, as there the host sets the pace (cutune.ROUTE_MIN_MS; 0 for a
    region captured in a CUDA graph, whose replays have no host cost a call). A size tuned
    without a yardstick recorded
    (an older database) is routed. db: a path or a cutune Handle (default: the default
    database). The choice is made once per shape. Under torch.compile and CUDA graph
    capture, shapes first met there keep torch's kernel; run the model eagerly once inside
    use() first (for a graph, the warm-up before its capture, in the same region: a graph's
    routing is fixed when it is captured). A graph replays the kernels of the region's
    handle: pass an open Handle as db and keep it open while the graph is replayed. `with
    use() as r:` r.routed counts the GEMMs the region sent to cutune. F.linear with a bias in
    fp16 or bf16 is a GEMM of its own, "MxNxK-bf16-nt-bias": the kernel adds the bias, as
    cuBLASLt's epilogue does for torch. It is routed where that size is tuned and beats
    cuBLASLt's bias epilogue. Where autograd records a GEMM (training), the forward is
    cutune's and the gradients are torch's GEMMs (the bias's, the output's gradient summed
    over rows), through an autograd Function, whose call costs more host time: such a GEMM
    is routed where its yardstick takes cutune.ROUTE_GRAD_FACTOR times min_ms or more."""
    return _Region(True, False, db, None, margin, min_ms)


def record(db=None, device=None, route=False):
    """A region whose GEMMs (shape, element type, layout) are written to the database as
    pending requests when it ends, for cutune.tune() (cutune run matmul --pending). device:
    the GPU to tune for when the model runs on the CPU (a name or UUID in the database);
    otherwise each GEMM's own CUDA device. route=True also routes them as use() does.
    cutune.recorded() lists them. Under torch.compile it raises (run the model eagerly);
    under CUDA graph capture it records as the graph is captured, never at replays."""
    return _Region(route, True, db, device)


def recorded():
    """The GEMMs the last record() region met: dicts of op, size (as the database keeps it:
    "MxNxK-bf16-nt", and "MxNxK-bf16-nt-bias" for F.linear with a bias in fp16 or bf16; the
    default layout nn is not written), M, N, K, dtype, layout, bias, device, calls, match
    (what the database answered) and pending."""
    return list(_recorded)


def tune(db=None, device="all", args=(), check=True):
    """Tune what record() wrote: runs `cutune run matmul --pending --device DEVICE` (the
    package's cutune command, else $CUTUNE_EXE or cutune on PATH) with its output shown, and
    returns its exit status (raising CalledProcessError on failure when check)."""
    exe = os.environ.get("CUTUNE_EXE")
    if not exe:
        bundled = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", "cutune")
        exe = bundled if os.access(bundled, os.X_OK) else "cutune"
    cmd = [exe, "run", "matmul", "--pending", "--device", str(device)]
    if db is not None:
        cmd += ["--db", str(db)]
    cmd += list(args)
    _lib.export_python_site()
    rc = subprocess.call(cmd)
    if check and rc:
        raise subprocess.CalledProcessError(rc, cmd)
    return rc
