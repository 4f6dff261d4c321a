"""ctypes declarations of libcutune's public API (core/include/cutune/lookup.h, cutune.h).

The structures mirror the C ones field for field; tests/python/test_module.py compiles a
small C program that prints their sizes and offsets and compares them with these."""
import ctypes
import ctypes.util
import os

c_int, c_double, c_char, c_void_p, c_size_t = (ctypes.c_int, ctypes.c_double, ctypes.c_char,
                                               ctypes.c_void_p, ctypes.c_size_t)

# core/include/cutune/cutune.h: CUTUNE_ERROR_TABLE
ERR_INVALID, ERR_NOMEM, ERR_IO, ERR_PARSE, ERR_NO_DEVICE, ERR_CUDA = -1, -2, -3, -4, -5, -6
ERR_COMPILE, ERR_DB, ERR_PLUGIN, ERR_NOT_FOUND, ERR_RANGE = -7, -8, -9, -10, -11
ERR_WRONG_RESULT, ERR_RESOURCES, ERR_INTERRUPTED = -12, -13, -14
ERROR_NAMES = {
    -1: "invalid", -2: "nomem", -3: "io", -4: "parse", -5: "no_device", -6: "cuda",
    -7: "compile", -8: "db", -9: "plugin", -10: "not_found", -11: "range",
    -12: "wrong_result", -13: "resources", -14: "interrupted",
}
# op.h: CutuneDtype, CutuneLayout
DTYPES = {"fp32": 0, "tf32": 1, "fp16": 2, "bf16": 3}
LAYOUTS = {"nn": 0, "nt": 1}
# lookup.h: CutuneMatch
MATCH_NAMES = {0: "miss", 1: "exact", 2: "nearest", 3: "same_arch", 4: "same_model"}


class Error(ctypes.Structure):
    _fields_ = [("code", c_int), ("msg", c_char * 1024)]


class DeviceInfo(ctypes.Structure):
    _fields_ = [
        ("index", c_int), ("name", c_char * 256), ("uuid", c_char * 64),
        ("cc_major", c_int), ("cc_minor", c_int), ("sm_count", c_int),
        ("total_mem", ctypes.c_uint64), ("max_threads_per_block", c_int),
        ("max_shared_per_block", c_int), ("max_shared_per_sm", c_int),
        ("max_regs_per_block", c_int), ("warp_size", c_int), ("l2_bytes", c_int),
        ("driver_version", c_int), ("runtime_version", c_int),
    ]


class Settings(ctypes.Structure):
    _fields_ = [("db_path", ctypes.c_char_p), ("record_requests", c_int),
                ("plugin_distance", c_int)]


class Result(ctypes.Structure):
    _fields_ = [
        ("match", c_int), ("op", c_char * 64), ("size", c_char * 64),
        ("tuned_size", c_char * 64), ("device_uuid", c_char * 64),
        ("device_name", c_char * 256), ("variant", c_char * 64),
        ("variant_version", c_char * 32), ("config", c_char * 512),
        ("median_ms", c_double), ("gflops", c_double), ("distance", c_double),
        ("trial_id", ctypes.c_int64), ("recorded", c_int), ("checked_size", c_char * 64),
    ]


_P = ctypes.POINTER
_PROTOTYPES = {
    "cutune_lookup_default_settings": (None, [_P(Settings)]),
    "cutune_open": (c_int, [_P(c_void_p), _P(Settings), _P(Error)]),
    "cutune_db_create": (c_int, [ctypes.c_char_p, _P(Error)]),
    "cutune_close": (None, [_P(c_void_p)]),
    "cutune_device_describe": (c_int, [c_int, _P(DeviceInfo), _P(Error)]),
    "cutune_device_find": (c_int, [c_void_p, ctypes.c_char_p, _P(DeviceInfo), _P(Error)]),
    "cutune_lookup": (c_int, [c_void_p, _P(DeviceInfo), ctypes.c_char_p, ctypes.c_char_p,
                              _P(Result), _P(Error)]),
    "cutune_lookup_yardstick": (c_int, [c_void_p, _P(DeviceInfo), ctypes.c_char_p,
                                        ctypes.c_char_p, _P(c_double), _P(c_char), c_size_t,
                                        _P(Error)]),
    "cutune_launch_on": (c_int, [c_void_p, c_int, _P(Result), ctypes.c_char_p, _P(c_void_p),
                                 c_void_p, _P(Error)]),
    "cutune_matmul_on": (c_int, [c_void_p, c_int, c_void_p, c_void_p, c_void_p, c_int, c_int,
                                 c_int, c_void_p, _P(Result), _P(Error)]),
    "cutune_gemm_on": (c_int, [c_void_p, c_int, c_int, c_int, c_void_p, c_void_p, c_void_p,
                               c_int, c_int, c_int, c_void_p, _P(Result), _P(Error)]),
    "cutune_gemm_bias_on": (c_int, [c_void_p, c_int, c_int, c_int, c_void_p, c_void_p, c_void_p,
                                    c_void_p, c_int, c_int, c_int, c_void_p, _P(Result),
                                    _P(Error)]),
    "cutune_best_list": (c_int, [c_void_p, ctypes.c_char_p, ctypes.c_char_p, _P(_P(Result)),
                                 _P(c_size_t), _P(Error)]),
    "cutune_best_list_free": (None, [_P(_P(Result))]),
    "cutune_strerror": (ctypes.c_char_p, [c_int]),
}


def library_path():
    """Where libcutune is taken from: $CUTUNE_LIBRARY, else the copy installed inside this
    package (a wheel), else the system's (`meson install`)."""
    env = os.environ.get("CUTUNE_LIBRARY")
    if env:
        return env
    bundled = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", "libcutune.so")
    if os.path.exists(bundled):
        return bundled
    return ctypes.util.find_library("cutune") or "libcutune.so.0"


def python_site():
    """The folders of this Python that may hold pip's nvidia-* packages (site-packages, the
    user's, and sys.path's), colon-separated: where libcutune, the cutune command and the
    worker look for the CUDA runtime, NVRTC and cuBLASLt before the system's
    (core/src/cudadl/cudafind.h), as PyTorch does."""
    import site
    import sys
    dirs = []
    try:
        dirs += list(site.getsitepackages()) + [site.getusersitepackages()]
    except AttributeError:  # a virtualenv's old site module
        pass
    for d in dirs + list(sys.path):
        if d and os.path.isdir(os.path.join(d, "nvidia")) and d not in _site_seen:
            _site_seen.append(d)
    return ":".join(_site_seen)


_site_seen = []


def export_python_site():
    """Put python_site() into CUTUNE_PYTHON_SITE (unless set) before libcutune or the cutune
    command starts: they read it when they first need CUDA."""
    if not os.environ.get("CUTUNE_PYTHON_SITE"):
        found = python_site()
        if found:
            os.environ["CUTUNE_PYTHON_SITE"] = found


_lib = None


def lib():
    """libcutune, loaded on first use, with every prototype declared. It needs no CUDA
    library to load: it opens the CUDA runtime and NVRTC at the first launch."""
    global _lib
    if _lib is None:
        export_python_site()
        path = library_path()
        try:
            handle = ctypes.CDLL(path)
        except OSError as e:
            if os.path.exists(path):  # there, but something it links is not
                raise OSError(
                    "cutune: cannot load %s (%s); it needs only the C library and libsqlite3 "
                    "(CUDA is opened at the first launch): install libsqlite3" % (path, e)
                ) from None
            raise OSError(
                "cutune: cannot load libcutune from %s (%s); install the package with "
                "`pip install .` from a cutune clone, or set CUTUNE_LIBRARY to the library's "
                "path (build/core/libcutune.so in a build tree)" % (path, e)) from None
        for name, (res, args) in _PROTOTYPES.items():
            fn = getattr(handle, name)
            fn.restype = res
            fn.argtypes = args
        _lib = handle
    return _lib
