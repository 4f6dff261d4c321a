"""Device arrays from PyTorch, CuPy and anything that speaks __cuda_array_interface__ or
DLPack: their device pointer, device, shape and element type, read without copying or
synchronising anything; and the stream their framework calls current."""
import ctypes

DLPACK_CUDA = 2  # DLDeviceType kDLCUDA
_TORCH_DTYPES = {}


class Array:
    """What a launch needs to know of one device array. `transposed`: a 2-D array that is
    the transpose of a C-contiguous one (strides (itemsize, rows * itemsize)), as W.T is
    of PyTorch's contiguous weight W: its pointer is W's."""
    __slots__ = ("ptr", "device", "shape", "typestr", "contiguous", "kind", "cuda", "transposed")

    def __init__(self, ptr, device, shape, typestr, contiguous, kind, cuda=True, strides=None,
                 itemsize=0):
        self.ptr, self.device, self.shape = ptr, device, shape
        self.typestr, self.contiguous, self.kind = typestr, contiguous, kind
        self.cuda = cuda  # False: host memory, or another kind of device
        self.transposed = (not contiguous and strides is not None and len(shape) == 2 and
                           tuple(strides) == (itemsize, shape[0] * itemsize))


def _module_of(obj):
    return type(obj).__module__.split(".", 1)[0]


def _torch(t):
    dev = t.device
    if dev.type != "cuda":
        return Array(0, None, tuple(t.shape), str(t.dtype), t.is_contiguous(),
                     "torch on " + str(dev), cuda=False)
    typestr = _TORCH_DTYPES.get(t.dtype)
    if typestr is None:
        typestr = _TORCH_DTYPES[t.dtype] = {
            "torch.float32": "<f4", "torch.float64": "<f8", "torch.float16": "<f2",
            "torch.int32": "<i4", "torch.int64": "<i8", "torch.uint8": "|u1",
            "torch.int8": "|i1", "torch.bfloat16": "<bf2"}.get(str(t.dtype), str(t.dtype))
    itemsize = t.element_size()
    return Array(t.data_ptr(), dev.index if dev.index is not None else 0, tuple(t.shape), typestr,
                 t.is_contiguous(), "torch", strides=tuple(n * itemsize for n in t.stride()),
                 itemsize=itemsize)


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _contiguous(shape, strides, itemsize):
    if strides is None:
        return True
    want = _c_strides(shape, itemsize)
    return all(n <= 1 or s == w for n, s, w in zip(shape, strides, want))


def _cai(obj, cai):
    shape = tuple(cai["shape"])
    typestr = cai["typestr"]
    itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 1
    device = None
    if hasattr(obj, "__dlpack_device__"):
        dtype, dev_id = obj.__dlpack_device__()
        device = int(dev_id) if int(dtype) == DLPACK_CUDA else None
    elif hasattr(obj, "device") and hasattr(obj.device, "id"):  # CuPy
        device = obj.device.id
    return Array(cai["data"][0] or 0, device, shape, typestr,
                 _contiguous(shape, cai.get("strides"), itemsize), _module_of(obj),
                 strides=cai.get("strides"), itemsize=itemsize)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _dlpack(obj):
    # Borrowed, not consumed: the capsule keeps its name, so its own destructor releases
    # the export; the pointer stays valid while obj lives.
    capsule = obj.__dlpack__()
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    shape = tuple(t.shape[i] for i in range(t.ndim))
    kinds = {0: "i", 1: "u", 2: "f", 4: "bf"}  # 4: kDLBfloat
    itemsize = t.dtype.bits // 8
    typestr = "<%s%d" % (kinds.get(t.dtype.code, "?"), itemsize)
    strides = None
    if t.strides:
        strides = tuple(t.strides[i] * itemsize for i in range(t.ndim))
    cuda = t.device.device_type == DLPACK_CUDA
    ptr = (t.data or 0) + t.byte_offset
    return Array(ptr, t.device.device_id if cuda else None, shape, typestr,
                 _contiguous(shape, strides, itemsize),
                 "%s (DLPack device type %d)" % (_module_of(obj), t.device.device_type), cuda,
                 strides=strides, itemsize=itemsize)


def describe(obj):
    """An Array for obj, or None when obj is not a device array cutune can read."""
    if _module_of(obj) == "torch" and hasattr(obj, "data_ptr"):
        return _torch(obj)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return _cai(obj, cai)
    if hasattr(obj, "__dlpack__"):
        return _dlpack(obj)
    return None


def stream_handle(stream):
    """A cudaStream_t (an int) from None (0), an int, or a framework's stream object."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr", "handle"):  # torch, cupy, cuda-python
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    cuda_stream = getattr(stream, "__cuda_stream__", None)
    if cuda_stream is not None:
        return int(cuda_stream()[1])
    raise TypeError("cutune: stream must be an int (a cudaStream_t), None, or a PyTorch, CuPy "
                    "or CUDA Python stream; got %r" % (stream,))


def current_stream(arr, obj):
    """The stream that obj's framework calls current on arr's device: the caller's stream."""
    if arr.kind == "torch":
        import torch
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        return raw(arr.device) if raw else torch.cuda.current_stream(arr.device).cuda_stream
    if arr.kind == "cupy":
        import cupy
        try:
            return cupy.cuda.get_current_stream(arr.device).ptr
        except TypeError:  # a CuPy whose get_current_stream takes no device
            return cupy.cuda.get_current_stream().ptr
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None and cai.get("stream"):
        return int(cai["stream"])  # the producer's stream (CAI v3)
    return 0
