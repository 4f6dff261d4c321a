#!/usr/bin/env python3
"""Run the Python module's tests under meson test: `run.py cpu|gpu`. Exits 77 (skipped)
without pytest, and for gpu without PyTorch and a CUDA device."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
try:
    import pytest
except ImportError:
    print("pytest is not installed: skipped (pip install pytest)")
    sys.exit(77)
which = sys.argv[1] if len(sys.argv) > 1 else "cpu"
if which == "gpu":
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("no CUDA device")
    except ImportError as e:
        print("skipped: %s" % e)
        sys.exit(77)
files = {"cpu": ["test_module.py", "test_torch.py"], "gpu": ["test_gpu.py", "test_torch_gpu.py"]}[which]
args = ["-q", "-rs", "-p", "no:cacheprovider"] + [os.path.join(here, f) for f in files]
sys.exit(pytest.main(args + sys.argv[2:]))
