"""cutune.swap(model): the nn.Linear layers of a model call cutune's tuned kernel where one is
tuned for the shape and beats cuBLAS(Lt) by the margin, through a forward of their own.

use() sees every torch function of its region through a TorchFunctionMode, a Python call for
each of the model's ops (norms, attention, activations, adds), GEMM or not: eagerly, that host
time can exceed the GPU's and slow the whole step. A swapped layer costs Python time only in
its own forward, so an eager step keeps the kernels' gain. The routing rule is use()'s
(cutune.prefer_tuned, decided once per shape)."""
import torch

from . import ROUTE_MARGIN, ROUTE_MIN_MS
from ._torch import (_BIAS_KINDS, _KINDS, _Router, _add_bias, _bias_fits, _linear_routed,
                     _route_kind, matmul_fast)

_MARK = "_cutune_swap"


class Swapped:
    """The layers swap() changed: `routed` counts the calls sent to cutune, `layers` the
    layers, restore() (or the end of a `with` block) gives them their own forward back."""

    def __init__(self, model, db, margin, min_ms):
        from . import Handle
        self.db = Handle(db) if db is not None and not isinstance(db, Handle) else db
        self.router = _Router(self.db, margin, min_ms)
        self.routed = 0
        self.layers = []
        for m in model.modules():
            if isinstance(m, torch.nn.Linear):
                if getattr(m, _MARK, None) is not None:
                    raise ValueError("cutune.swap: %r is already swapped; restore() the other "
                                     "swap first" % m)
                if "forward" in m.__dict__:  # its own, which the swap would bypass and lose
                    raise ValueError("cutune.swap: %r has a forward of its own (set on the "
                                     "instance); route it with `with cutune.use():`" % m)
                self.layers.append(m)
        if not self.layers:
            raise ValueError("cutune.swap: %s has no nn.Linear layer: nothing to route (for "
                             "other GEMMs use `with cutune.use():`)" % type(model).__name__)
        for m in self.layers:
            setattr(m, _MARK, self)
            m.forward = self._forward_of(m)

    def _forward_of(self, m):
        def forward(x):
            w = m.weight
            out = _linear_routed(self.router, self.db, x, w, m.bias)
            if out is False:
                return torch.nn.functional.linear(x, w, m.bias)
            if out is not None:
                self.routed += 1
                return out
            # a shape met first (decided here), or a gradient to record
            kind = _KINDS.get(x.dtype)
            if (kind and x.is_cuda and x.dtype == w.dtype and x.device == w.device
                    and x.dim() >= 2 and x.is_contiguous() and w.is_contiguous()):
                kind = _route_kind(kind)
                K = x.shape[-1]
                N = w.shape[0]
                M = x.numel() // K if K else 0
                bias = m.bias
                # the kernel adds a bias in fp16 and bf16 ("-bias"); fp32's is added after it
                fused = bias is not None and _bias_fits(bias, x, N, kind)
                grad = torch.is_grad_enabled() and (x.requires_grad or w.requires_grad or
                                                    (fused and bias.requires_grad))
                if (M and N and (fused or bias is None or kind not in _BIAS_KINDS)
                        and self.router.tuned(M, N, K, kind, "nt", x.device, fused, grad)):
                    self.routed += 1
                    out = matmul_fast(x.reshape(M, K), w.t(), kind, self.db,
                                      bias if fused else None).reshape(x.shape[:-1] + (N,))
                    return out if fused else _add_bias(out, bias)
            return torch.nn.functional.linear(x, w, m.bias)

        return forward

    def restore(self):
        """Each layer's own forward again (twice is harmless)."""
        for m in self.layers:
            if getattr(m, _MARK, None) is self:
                del m.forward
                delattr(m, _MARK)
        self.layers = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.restore()
        return False


def swap(model, db=None, margin=ROUTE_MARGIN, min_ms=ROUTE_MIN_MS):
    """Route model's nn.Linear layers (F.linear(x, W): layout nt) to cutune's tuned kernel
    where the database has one for the shape, element type and GPU that beats the cuBLAS(Lt)
    time recorded beside it by `margin` and takes `min_ms` or more (as use() decides; 0 for a
    model replayed in CUDA graphs), and to torch's F.linear elsewhere. Unlike use(), no other
    torch call pays a Python hook, so an eager step keeps the kernels' gain. db: a path or a
    cutune Handle (default: the default database). Returns a Swapped: `.routed` counts the
    GEMMs sent to cutune, `.restore()` undoes the swap, and `with cutune.swap(model):` undoes
    it at the end of the block. Raises ValueError for a model without nn.Linear layers, with
    layers another swap holds, or with a layer whose forward was replaced on the instance."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError("cutune.swap: needs a torch.nn.Module; got %s" % type(model).__name__)
    return Swapped(model, db, margin, min_ms)
