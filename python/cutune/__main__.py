"""`cutune` on the command line from a pip-installed package: runs the cutune command that
the wheel carries beside libcutune (python -m cutune run matmul --device 0)."""
import os
import sys


def main():
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", "cutune")
    if not os.access(exe, os.X_OK):
        sys.stderr.write("cutune: this Python package has no cutune command (%s); it comes "
                         "with `pip install .` from a cutune clone, or use build/cli/cutune\n"
                         % exe)
        return 1
    # pip's nvidia-* packages of this Python, where the command looks for CUDA first
    from . import _lib
    _lib.export_python_site()
    os.execv(exe, [exe] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
