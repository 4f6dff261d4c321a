"""cutune from Python: look up the best tuned config of a CUDA kernel and launch it on
PyTorch or CuPy tensors, on the caller's stream, with no copy through the host.

    import cutune, torch
    c = cutune.matmul(a, b)                    # float32 CUDA tensors; the default database
    with cutune.open("tuned.db") as h:
        r = h.lookup("matmul", "4096x4096x4096", device=0)
        print(r.match, r.variant, r.config, r.median_ms)
        h.launch("matmul", (M, N, K), a, b, c, M, N, K, None)  # the op's kernel arguments
        h.best()                               # every best config (a DataFrame with pandas)

A thin layer over libcutune's public C API (cutune/lookup.h) through ctypes; errors raise
cutune.CutuneError with the library's message."""
import atexit
import ctypes
import os
import threading

from . import _arrays
from . import _lib
from ._lib import Error as _Error, Result as _Result, DeviceInfo as _DeviceInfo

__version__ = "0.1.0"
__all__ = ["open", "create_db", "matmul", "Handle", "Lookup", "CutuneError", "NotFoundError",
           "NoDeviceError", "MATCHES", "prefer_tuned", "matmul_op", "matmul_fast", "use",
           "record", "recorded", "tune", "swap"]

# PyTorch's side (cutune/_torch.py): imported on first use, so that `import cutune` needs no
# torch
_TORCH_NAMES = ("matmul_op", "matmul_fast", "use", "record", "recorded", "tune", "swap")


def __getattr__(name):
    if name == "swap":
        from . import _swap
        return _swap.swap
    if name in _TORCH_NAMES:
        from . import _torch
        return getattr(_torch, name)
    raise AttributeError("module 'cutune' has no attribute %r" % name)


def _register_torch_if_imported():
    """torch.ops.cutune.matmul exists once cutune._torch is imported: at once where torch was
    imported before cutune, else at the first use of a name above."""
    import sys
    if "torch" in sys.modules:
        from . import _torch  # noqa: F401

# The ladder's steps in order (cutune/lookup.h): this GPU at this size, another GPU of its
# model at this size, the nearest size on it or its model, its architecture, nothing.
MATCHES = ("exact", "same_model", "nearest", "same_arch", "miss")


# How much faster than the vendor yardstick a tuned kernel must be for use() to call it.
ROUTE_MARGIN = 0.03
# A GEMM whose vendor time is shorter than this (ms) stays torch's: there the host sets the
# pace, and cutune's call costs it more than torch's. A routed F.linear inside use() takes
# 14-21 us of host time, 1-7 us more than torch's own (64x64x64 bf16, and 4096x1024x1024
# bf16 with the bias through cuBLASLt, on an H200; bench/torch_overhead.py, 2026-11-29; it
# took 29.9 us on an H200 and 34.0 on an H100 on 2026-11-27, when a 4096x1024x1024-bf16-nt
# GEMM tuned 3% faster than cuBLASLt ran at 0.486x torch's through cutune), so a kernel
# shorter than about twice that gains nothing a call and can lose.
ROUTE_MIN_MS = 0.03
# A GEMM that autograd records (training) is routed where its vendor time is this many times
# min_ms or more: its call goes through an autograd Function in Python, which costs about
# 0.03 ms more host time than torch's own call with gradients (29-34 us at
# 4096x1024x1024-bf16-nt-bias on an H200, against 5-7 us without gradients;
# bench/torch_overhead.py --grad, 2026-11-29): routed at the 0.04-0.05 ms GEMMs of the
# small transformer, its eager training step ran at 0.75-0.82x torch's.
ROUTE_GRAD_FACTOR = 3


def prefer_tuned(match, best_ms, yardstick_ms, margin=ROUTE_MARGIN, min_ms=ROUTE_MIN_MS):
    """Whether cutune.use() calls cutune's tuned kernel rather than torch's own: only for a
    config tuned at that very size (match "exact" or "same_model"; one of another size may be
    slower than torch's) whose time best_ms beats the vendor yardstick recorded beside it
    (yardstick_ms: cuBLASLt or cuBLAS, as torch itself calls) by the margin:
    best_ms <= yardstick_ms / (1 + margin). A call through cutune costs more on the host than
    torch's (some microseconds) and, with an fp32 or tf32 bias, a kernel of its own where
    cuBLASLt fuses it (fp16 and bf16 GEMMs with a bias are tuned as their own "-bias"
    sizes, the bias in the kernel), so a tie goes to torch; and a GEMM whose yardstick
    takes under min_ms (about the host time of a call through use()) stays torch's, since
    there the host, not the kernel, sets the pace. Without a recorded yardstick
    (yardstick_ms None or 0: a database from a cutune that recorded none) a size tuned
    exactly is cutune's."""
    if match not in ("exact", "same_model"):
        return False
    if not yardstick_ms or yardstick_ms <= 0:
        return True
    return yardstick_ms >= min_ms and best_ms <= yardstick_ms / (1.0 + margin)


class CutuneError(RuntimeError):
    """A failure in cutune: `code` is the library's CUTUNE_ERR_* value (negative), `name`
    its short name ("not_found", "cuda", ...), and the text is the library's message."""

    def __init__(self, message, code=_lib.ERR_INVALID):
        super().__init__(message)
        self.code = code
        self.name = _lib.ERROR_NAMES.get(code, "unknown")


class NotFoundError(CutuneError, LookupError):
    """Nothing answers: no such device, database, variant or tuned config."""


class NoDeviceError(CutuneError):
    """No CUDA driver or device on this machine."""


def _raise(rc, err):
    msg = err.msg.decode("utf-8", "replace") or _lib.lib().cutune_strerror(rc).decode()
    cls = {_lib.ERR_NOT_FOUND: NotFoundError, _lib.ERR_NO_DEVICE: NoDeviceError}.get(rc,
                                                                                    CutuneError)
    raise cls(msg, rc)


def create_db(db=None):
    """Create the tuning database at db (default: where `cutune run` writes), in cutune's
    schema, if there is none; open() opens only an existing one."""
    err = _lib.Error()
    rc = _lib.lib().cutune_db_create(os.fsencode(db) if db is not None else None,
                                     ctypes.byref(err))
    if rc != 0:
        _raise(rc, err)


def _size_text(size):
    """The size text from a string ("4096x4096x4096"), an int (reduce_sum's N, or matmul's
    N for NxNxN) or a tuple of ints ((M, N, K)). The library reads it by the op's own size
    rules, as `cutune run --size` does."""
    if isinstance(size, str):
        return size
    if isinstance(size, int):
        return str(size)
    if isinstance(size, (tuple, list)) and size and all(isinstance(d, int) for d in size):
        return "x".join(str(d) for d in size)
    raise TypeError("cutune: a size is a string such as '4096x4096x4096', an int, or a tuple "
                    "of ints; got %r" % (size,))


class Lookup:
    """The answer of a lookup. `match` is one of MATCHES; on a miss, `variant` and `config`
    are None and `median_ms` is 0. `checked_size` is where cutune checked the config: the
    tuned size, or a ragged size near it (dimensions that are multiples of no tile) for an
    answer of another size."""
    __slots__ = ("match", "op", "size", "tuned_size", "device_uuid", "device_name", "variant",
                 "variant_version", "config", "config_text", "median_ms", "gflops", "distance",
                 "trial_id", "recorded", "checked_size", "_raw")

    def __init__(self, raw, fallback=True):
        d = lambda b: b.decode("utf-8", "replace")  # noqa: E731
        self.match = _lib.MATCH_NAMES.get(raw.match, "miss")
        if not fallback and self.match not in ("exact", "same_model"):
            self.match = "miss"
        self.op, self.size = d(raw.op), d(raw.size)
        self.recorded = bool(raw.recorded)
        self._raw = raw
        hit = self.match != "miss"
        self.tuned_size = d(raw.tuned_size) if hit else None
        self.device_uuid = d(raw.device_uuid) if hit else None
        self.device_name = d(raw.device_name) if hit else None
        self.variant = d(raw.variant) if hit else None
        self.variant_version = d(raw.variant_version) if hit else None
        self.config_text = d(raw.config) if hit else None
        self.config = _parse_config(self.config_text) if hit else None
        self.median_ms = raw.median_ms if hit else 0.0
        self.gflops = raw.gflops if hit else 0.0
        self.distance = raw.distance if hit else 0.0
        self.trial_id = raw.trial_id if hit else 0
        # where cutune checked the config on its device: tuned_size, or for another size's
        # answer the ragged size near tuned_size where it passed (lookup.h, "Checked")
        self.checked_size = d(raw.checked_size) if hit else None

    def __bool__(self):
        return self.match != "miss"

    def as_dict(self):
        return {k: getattr(self, k) for k in self.__slots__ if k != "_raw"}

    def __repr__(self):
        if self.match == "miss":
            return "Lookup(miss: %s %s)" % (self.op, self.size)
        return "Lookup(%s: %s %s -> %s %s, %.6g ms at %s on %s)" % (
            self.match, self.op, self.size, self.variant, self.config_text, self.median_ms,
            self.tuned_size, self.device_name)


def _parse_config(text):
    out = {}
    for kv in filter(None, text.split(",")):
        name, _, value = kv.partition("=")
        try:
            out[name] = int(value)
        except ValueError:
            out[name] = value
    return out


class Handle:
    """An open tuning database (cutune_open): lookups are cached for the handle's life, and
    the kernels it launched stay loaded until close(). Safe to share between threads."""

    def __init__(self, db=None, record_requests=True, plugin_distance=True):
        lib = _lib.lib()
        s = _lib.Settings()
        lib.cutune_lookup_default_settings(ctypes.byref(s))
        s.db_path = None if db is None else str(db).encode()
        s.record_requests = 1 if record_requests else 0
        s.plugin_distance = 1 if plugin_distance else 0
        h, err = ctypes.c_void_p(), _Error()
        rc = lib.cutune_open(ctypes.byref(h), ctypes.byref(s), ctypes.byref(err))
        if rc:
            _raise(rc, err)
        self._h = h
        self._lib = lib
        self._devices = {}
        self._mu = threading.Lock()

    # ---- lifetime ---------------------------------------------------------------------
    def close(self):
        """Unload the kernels and close the database. Later calls raise CutuneError."""
        with self._mu:
            if self._h is not None and self._h.value:
                self._lib.cutune_close(ctypes.byref(self._h))
            self._h = None

    @property
    def closed(self):
        return self._h is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _handle(self):
        h = self._h
        if h is None:
            raise CutuneError("this cutune handle is closed; open another with cutune.open()")
        return h

    # ---- devices ----------------------------------------------------------------------
    def _device(self, device):
        """A DeviceInfo: an ordinal of this machine, or a UUID or part of a name recorded in
        the database (which needs no GPU). A name that several GPUs of one model share is
        that model (its uuid empty): lookups answer over all of its GPUs."""
        info = self._devices.get(device)
        if info is not None:
            return info
        h, err, info = self._handle(), _Error(), _DeviceInfo()
        if isinstance(device, bool) or not isinstance(device, (int, str)):
            raise TypeError("cutune: device is an ordinal (int) or a UUID or name (str); got %r"
                            % (device,))
        if isinstance(device, int):
            rc = self._lib.cutune_device_describe(device, ctypes.byref(info), ctypes.byref(err))
        else:
            rc = self._lib.cutune_device_find(h, device.encode(), ctypes.byref(info),
                                              ctypes.byref(err))
        if rc:
            _raise(rc, err)
        self._devices[device] = info
        return info

    # ---- lookups ----------------------------------------------------------------------
    def lookup(self, op, size, device=0, fallback=True):
        """The best verified config of `op` for `size` on `device` (an ordinal, or a UUID or
        name recorded in the database): a Lookup with its match level ("exact", "same_model",
        "nearest", "same_arch" or "miss": the step of the ladder that answered), variant,
        config and measured time. `size` follows the op's
        size rules, as `cutune run --size` does: lookup("matmul", 4096) is 4096x4096x4096,
        and a size the op refuses raises CutuneError (name "invalid"). fallback=False
        reports anything but an exact size (on this GPU or one of its model) as a miss. A
        miss is not an error; it is recorded in the database's requests for
        `cutune run --pending` when the handle records, unless no installed plugin
        implements the op (nothing could tune it)."""
        h, info = self._handle(), self._device(device)
        raw, err = _Result(), _Error()
        rc = self._lib.cutune_lookup(h, ctypes.byref(info), str(op).encode(),
                                     _size_text(size).encode(), ctypes.byref(raw),
                                     ctypes.byref(err))
        if rc and rc != _lib.ERR_NOT_FOUND:
            _raise(rc, err)
        return Lookup(raw, fallback)

    def yardstick(self, op, size, device=0):
        """The vendor library's time for `op` at `size` that `cutune run` recorded beside the
        tuned kernels (cuBLASLt or cuBLAS for matmul), as (name, median_ms): on `device` (an
        ordinal, or a UUID or name recorded in the database) at this size, else the fastest
        of the other GPUs of its model at this size; None where none was recorded. Compare it
        with lookup(op, size).median_ms."""
        h, info = self._handle(), self._device(device)
        ms, name, err = ctypes.c_double(), ctypes.create_string_buffer(256), _Error()
        rc = self._lib.cutune_lookup_yardstick(h, ctypes.byref(info), str(op).encode(),
                                               _size_text(size).encode(), ctypes.byref(ms),
                                               name, len(name), ctypes.byref(err))
        if rc == _lib.ERR_NOT_FOUND:
            return None
        if rc:
            _raise(rc, err)
        return name.value.decode("utf-8", "replace"), ms.value

    def prefers_tuned(self, op, size, device=0, margin=ROUTE_MARGIN, min_ms=ROUTE_MIN_MS):
        """Whether cutune.use() calls cutune's kernel for `op` at `size` on `device`: the
        lookup answers at this very size and its best beats the recorded yardstick by the
        margin, and the yardstick takes min_ms or more (see cutune.prefer_tuned)."""
        r = self.lookup(op, size, device)
        if r.match not in ("exact", "same_model"):
            return False
        y = self.yardstick(op, size, device)
        return prefer_tuned(r.match, r.median_ms, y[1] if y else None, margin, min_ms)

    def best(self, op=None, device=None, as_frame=None):
        """Every best config (the fastest verified per device, op and size), of one op and
        one device (a UUID or part of a name) when given: a pandas DataFrame when pandas is
        installed (as_frame=None) or asked for (True), else a list of dicts."""
        h, err = self._handle(), _Error()
        lst, n = ctypes.POINTER(_Result)(), ctypes.c_size_t()
        rc = self._lib.cutune_best_list(h, None if device is None else str(device).encode(),
                                        None if op is None else str(op).encode(),
                                        ctypes.byref(lst), ctypes.byref(n), ctypes.byref(err))
        if rc:
            _raise(rc, err)
        try:
            rows = []
            for i in range(n.value):
                r = Lookup(lst[i])
                rows.append({"device": r.device_name, "device_uuid": r.device_uuid, "op": r.op,
                             "size": r.size, "variant": r.variant,
                             "variant_version": r.variant_version, "config": r.config_text,
                             "median_ms": r.median_ms, "gflops": r.gflops,
                             "trial_id": r.trial_id})
        finally:
            self._lib.cutune_best_list_free(ctypes.byref(lst))
        if as_frame is False:
            return rows
        try:
            import pandas
        except ImportError:
            if as_frame:
                raise
            return rows
        columns = ["device", "device_uuid", "op", "size", "variant", "variant_version",
                   "config", "median_ms", "gflops", "trial_id"]
        return pandas.DataFrame(rows, columns=columns)

    # ---- launches ---------------------------------------------------------------------
    def launch(self, op, size, *args, device=0, stream=None):
        """Look up `op` at `size` on CUDA device `device` and launch the tuned kernel with
        `args`, the op's kernel arguments in its documented order (`cutune list OP`;
        matmul: A, B, C, M, N, K, bias, the bias None for a size without "-bias"). A device
        array (PyTorch, CuPy, __cuda_array_interface__, DLPack) passes its pointer and must be
        C-contiguous and on `device`; None passes a NULL pointer; an int passes a C int (one
        outside -2**31 .. 2**31-1 raises OverflowError before anything runs, never wraps), a
        float a C float, and a ctypes value (ctypes.c_longlong(n)) itself. The
        launch is asynchronous, on `stream` or else the stream the first array's framework
        calls current. Returns the Lookup it launched."""
        h = self._handle()
        if isinstance(device, bool) or not isinstance(device, int):
            raise TypeError("cutune: launch needs a device ordinal (int), got %r" % (device,))
        size_text = _size_text(size)
        values, first = [], None
        for i, a in enumerate(args):
            if isinstance(a, bool):
                values.append(ctypes.c_int(int(a)))
            elif isinstance(a, int):
                values.append(_c_int(a, i, op))
            elif isinstance(a, float):
                values.append(ctypes.c_float(a))
            elif isinstance(a, ctypes._SimpleCData):
                values.append(a)
            elif a is None:  # a NULL pointer (matmul's bias for a size without "-bias")
                values.append(ctypes.c_void_p(None))
            else:
                arr = _checked(a, device, "argument %d" % (i + 1), op)
                first = first or (arr, a)
                values.append(ctypes.c_void_p(arr.ptr))
        r = self.lookup(op, size_text, device)
        if not r:
            raise NotFoundError("cutune: no tuned config for %s %s on device %d, nearby or on "
                                "its architecture; tune it: cutune run %s --size %s"
                                % (op, size_text, device, op, size_text), _lib.ERR_NOT_FOUND)
        ptrs = (ctypes.c_void_p * max(len(values), 1))(
            *[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in values])
        s = _stream(stream, first)
        err = _Error()
        rc = self._lib.cutune_launch_on(h, device, ctypes.byref(r._raw), size_text.encode(),
                                        ptrs, s, ctypes.byref(err))
        if rc:
            _raise(rc, err)
        return r

    def matmul(self, a, b, out=None, stream=None, dtype=None, bias=None):
        """out = a @ b with the best tuned matmul kernel, on 2-D device arrays of one GPU:
        float32 (dtype "fp32", or "tf32" for float32 on the tensor cores), float16 ("fp16")
        or bfloat16 ("bf16"), row-major. a is C-contiguous; b is C-contiguous (K x N) or the
        transpose of a C-contiguous N x K array, as W.T is in PyTorch's F.linear(x, W): then
        the kernel reads W itself (layout nt), without a copy. out (C-contiguous, a's type)
        is allocated when not given. Launched on `stream`, else on the stream a's framework
        calls current; returns out. Only configs tuned for that element type and layout
        answer ("cutune run matmul --dtype bf16 --layout nt"). bias (float16 or bfloat16: a
        C-contiguous vector of N of a's type) is added to every row by the kernel, before
        its rounding, as F.linear(x, W, bias) does: only configs tuned with a bias answer
        ("cutune run matmul --size 4096x1024x1024-bf16-nt-bias")."""
        h = self._handle()
        if out is None and stream is None and type(a).__module__ == "torch" and \
                getattr(a, "is_cuda", False):
            # plain torch tensors: the short launch path, where its checks hold
            global _torch_handle_matmul
            if _torch_handle_matmul is None:
                from . import _torch
                _torch_handle_matmul = _torch.handle_matmul
            got = _torch_handle_matmul(self, a, b, dtype, bias)
            if got is not None:
                return got
        A = _checked(a, None, "a", "matmul")
        B = _checked(b, A.device, "b", "matmul", transposed_ok=True)
        if len(A.shape) != 2 or len(B.shape) != 2 or A.shape[1] != B.shape[0]:
            raise ValueError("cutune.matmul: needs 2-D arrays with a.shape[1] == b.shape[0]; "
                             "got %s and %s" % (A.shape, B.shape))
        kinds = {"<f4": "fp32", "<f2": "fp16", "<bf2": "bf16"}
        if A.typestr not in kinds or B.typestr != A.typestr:
            raise TypeError("cutune.matmul: needs two float32, float16 or bfloat16 arrays of "
                            "one type; got %s and %s" % (A.typestr, B.typestr))
        kind = kinds[A.typestr]
        if dtype is not None:
            if not (dtype == kind or (dtype == "tf32" and kind == "fp32")):
                raise ValueError("cutune.matmul: dtype=%r does not fit %s arrays (float32 "
                                 "arrays take 'fp32' or 'tf32')" % (dtype, kind))
            kind = dtype
        layout = "nt" if B.transposed else "nn"
        M, K = A.shape
        N = B.shape[1]
        if out is None:
            out = _empty_like(a, A, (M, N))
        C = _checked(out, A.device, "out", "matmul")
        if C.shape != (M, N) or C.typestr != A.typestr:
            raise ValueError("cutune.matmul: out must be %s of shape %s; got %s %s"
                             % (A.typestr, (M, N), C.typestr, C.shape))
        if M == 0 or N == 0 or K == 0:
            raise ValueError("cutune.matmul: empty matrices (%d x %d times %d x %d)"
                             % (M, K, K, N))
        if bias is not None:
            if kind not in ("fp16", "bf16"):
                raise TypeError("cutune.matmul: a bias is added by the kernel in float16 and "
                                "bfloat16 only; add it yourself for %s" % kind)
            V = _checked(bias, A.device, "bias", "matmul")
            if V.shape != (N,) or V.typestr != A.typestr:
                raise ValueError("cutune.matmul: bias must be a vector of %d %s (one per "
                                 "column of the product); got %s %s"
                                 % (N, A.typestr, V.typestr, V.shape))
        s = _stream(stream, (A, a))
        err = _Error()
        if bias is not None:
            rc = self._lib.cutune_gemm_bias_on(h, A.device, _lib.DTYPES[kind],
                                               _lib.LAYOUTS[layout], A.ptr, B.ptr, V.ptr, C.ptr,
                                               M, N, K, s, None, ctypes.byref(err))
        else:
            rc = self._lib.cutune_gemm_on(h, A.device, _lib.DTYPES[kind], _lib.LAYOUTS[layout],
                                          A.ptr, B.ptr, C.ptr, M, N, K, s, None,
                                          ctypes.byref(err))
        if rc:
            _raise(rc, err)
        return out


_INT_MIN, _INT_MAX = -2 ** 31, 2 ** 31 - 1


def _c_int(value, i, op):
    """A C int for a kernel's int parameter: ctypes.c_int would wrap 2**31 to -2**31."""
    if not _INT_MIN <= value <= _INT_MAX:
        raise OverflowError("cutune launch %s: argument %d is %d, outside a C int (-2**31 .. "
                            "2**31-1), which the kernel's int parameter takes; a kernel whose "
                            "parameter is 64-bit takes ctypes.c_longlong(n)" % (op, i + 1, value))
    return ctypes.c_int(value)


def _checked(obj, device, what, op, transposed_ok=False):
    arr = _arrays.describe(obj)
    if arr is None:
        raise TypeError("cutune %s: %s is a %s, not a CUDA device array (a PyTorch or CuPy "
                        "tensor, or anything with __cuda_array_interface__ or __dlpack__)"
                        % (op, what, type(obj).__name__))
    if not arr.cuda:
        raise ValueError("cutune %s: %s is not on a CUDA device (%s); move it there first, "
                         "e.g. t.cuda()" % (op, what, arr.kind))
    if device is not None and arr.device is not None and arr.device != device:
        raise ValueError("cutune %s: %s is on CUDA device %d, but the launch is on device %d; "
                         "put every tensor on one device and pass it as device=" %
                         (op, what, arr.device, device))
    if not arr.contiguous and not (transposed_ok and arr.transposed):
        raise ValueError("cutune %s: %s is not C-contiguous (shape %s)%s; pass t.contiguous() "
                         "(a copy on the device)" % (op, what, arr.shape,
                                                     ", nor the transpose of a C-contiguous "
                                                     "array" if transposed_ok else ""))
    if arr.device is None:
        arr.device = device if device is not None else 0
    return arr


def _stream(stream, first):
    if stream is not None or first is None:
        return _arrays.stream_handle(stream)
    return _arrays.current_stream(first[0], first[1])


def _empty_like(obj, arr, shape):
    if arr.kind == "torch":
        return obj.new_empty(shape)
    if arr.kind == "cupy":
        import cupy
        with cupy.cuda.Device(arr.device):
            return cupy.empty(shape, dtype=obj.dtype)
    raise TypeError("cutune.matmul: cannot allocate the result like a %s; pass out="
                    % type(obj).__name__)


def open(db=None, record_requests=True, plugin_distance=True):  # noqa: A001
    """Open a tuning database (None: $CUTUNE_DB, else the default that `cutune run` writes)
    and return a Handle. record_requests: lookups without an exact answer are added to the
    database's requests, for `cutune run --pending`."""
    return Handle(db, record_requests, plugin_distance)


_default = None
_default_mu = threading.Lock()


def _default_handle():
    global _default
    with _default_mu:
        if _default is None or _default.closed:
            _default = Handle()
            atexit.register(_default.close)
        return _default


_torch_matmul = None  # cutune._torch.matmul_tensors, bound at the first torch call
_torch_handle_matmul = None  # cutune._torch.handle_matmul, likewise (Handle.matmul)


def matmul(a, b, out=None, stream=None, dtype=None, bias=None):
    """a @ b (+ bias) with the best tuned kernel from the default database (see
    Handle.matmul). Two CUDA PyTorch tensors with no out=, stream= or bias= take the shorter
    path of cutune.matmul_fast (the same checks and the same launch, fewer Python steps a
    call; bench/torch_overhead.py times this path against torch's own call)."""
    global _torch_matmul
    if out is None and stream is None and bias is None and type(a).__module__ == "torch" and \
            type(b).__module__ == "torch" and getattr(a, "is_cuda", False):
        if _torch_matmul is None:
            from . import _torch
            _torch_matmul = _torch.matmul_tensors
        return _torch_matmul(a, b, dtype)
    return _default_handle().matmul(a, b, out, stream, dtype, bias)


def lookup(op, size, device=0, fallback=True):
    """A lookup in the default database (see Handle.lookup)."""
    return _default_handle().lookup(op, size, device, fallback)


_register_torch_if_imported()
