#!/usr/bin/env python3
"""Print the folders of the CUDA headers that pip's nvidia-* packages put into this Python's
site-packages, one a line: what meson.build builds against where no CUDA Toolkit is installed.
cutune needs cuda_runtime.h (nvidia-cuda-runtime) and nvrtc.h (nvidia-cuda-nvrtc); CUDA 13's
wheels put both into nvidia/cu13/include, CUDA 12's into nvidia/cuda_runtime/include and
nvidia/cuda_nvrtc/include. Exits 1, saying what to install, when either is missing."""
import os
import site
import sys


def candidates():
    dirs = list(site.getsitepackages()) + [site.getusersitepackages()] + sys.path
    seen = set()
    for d in dirs:
        if d and d not in seen and os.path.isdir(os.path.join(d, "nvidia")):
            seen.add(d)
            yield os.path.join(d, "nvidia")


def main():
    need = ("cuda_runtime.h", "nvrtc.h")
    for nv in candidates():
        for layout in (["cu13/include"], ["cuda_runtime/include", "cuda_nvrtc/include"]):
            dirs = [os.path.join(nv, d) for d in layout]
            found = [any(os.path.exists(os.path.join(d, h)) for d in dirs) for h in need]
            if all(found):
                print("\n".join(d for d in dirs if os.path.isdir(d)))
                return 0
    sys.stderr.write("no cuda_runtime.h and nvrtc.h under nvidia/ in %s; install them with "
                     "`pip install nvidia-cuda-runtime nvidia-cuda-nvrtc` (CUDA 13; "
                     "-cu12 names for CUDA 12), then build with "
                     "`pip install --no-build-isolation .`\n" % sys.executable)
    return 1


if __name__ == "__main__":
    sys.exit(main())
