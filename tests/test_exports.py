"""libcutune.so exports its documented API and nothing else.

    test_exports.py LIBCUTUNE HEADER... -- PYTHON_SOURCE... [--no-cuda PROGRAM...]

The documented API is every function declared with CUTUNE_API in the public headers
(core/include/cutune/*.h); the exported set is what `nm -D --defined-only` lists. Any symbol
exported but not documented (an internal function, a global)
and any function documented but not exported fails the test, named. The Python module
calls libcutune through ctypes: every libcutune function it names (python/cutune/*.py) must
be documented too. Nor does libcutune.so (or a PROGRAM after --no-cuda: the cutune command,
the worker) link CUDA: no libcudart, libnvrtc or cuBLAS among its NEEDED entries and no
undefined cuda* or nvrtc* symbol, for it opens them when first needed (core/src/cudadl/), so
that a lookup runs where there is no CUDA. Exits 77 (skipped) only where nm is missing."""
import re
import shutil
import subprocess
import sys

# Defined by the linker in some toolchains' shared objects, never by cutune's code.
LINKER_SYMBOLS = {"_init", "_fini", "_edata", "_end", "__bss_start"}


def documented(headers):
    """Names of the functions declared with CUTUNE_API in the headers."""
    names = {}
    for path in headers:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        # the macro's own definition is on a preprocessor line: drop those (with their
        # continuations) before looking for declarations
        text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
        for m in re.finditer(r"\bCUTUNE_API\b([^;{(]*)\(", text):
            name = re.findall(r"[A-Za-z_]\w*", m.group(1))
            if not name:
                sys.exit("FAIL: %s: CUTUNE_API before a declaration without a name: %r"
                         % (path, m.group(0)))
            names[name[-1]] = path
    return names


def exported(lib, nm):
    out = subprocess.run([nm, "-D", "--defined-only", lib], check=True, capture_output=True,
                         text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 3:
            names.add(fields[2].split("@")[0])
    return names - LINKER_SYMBOLS


def python_calls(paths):
    """The library's functions the Python module names: its ctypes prototypes
    ("cutune_open": ...) and the calls (lib.cutune_open(...))."""
    names = set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            names |= set(re.findall(r'"(cutune_\w+)"|\.(cutune_\w+)\b', f.read()))
    return {a or b for a, b in names}


CUDA_LIBS = re.compile(r"^lib(cudart|nvrtc|cublas|cublasLt|cuda)\.so")


def cuda_links(path, nm):
    """What of CUDA `path` links: NEEDED entries and undefined cuda*/nvrtc* symbols."""
    bad = []
    dyn = subprocess.run(["objdump", "-p", path], check=True, capture_output=True,
                         text=True).stdout
    for m in re.finditer(r"^\s*NEEDED\s+(\S+)", dyn, flags=re.M):
        if CUDA_LIBS.match(m.group(1)):
            bad.append("NEEDED " + m.group(1))
    und = subprocess.run([nm, "-D", "--undefined-only", path], check=True,
                         capture_output=True, text=True).stdout
    for line in und.splitlines():
        name = line.split()[-1].split("@")[0] if line.split() else ""
        if re.match(r"^(cuda|nvrtc|cublas)[A-Z]", name):
            bad.append("undefined " + name)
    return bad


def main():
    lib, args = sys.argv[1], sys.argv[2:]
    no_cuda = [lib]
    if "--no-cuda" in args:
        no_cuda += args[args.index("--no-cuda") + 1:]
        args = args[:args.index("--no-cuda")]
    cut = args.index("--")
    headers, python = args[:cut], args[cut + 1:]
    nm = shutil.which("nm")
    if not nm:
        print("no nm here: skipped")
        return 77
    api = documented(headers)
    have = exported(lib, nm)
    fail = 0
    if len(api) < 10 or "cutune_open" not in api or "cutune_strerror" not in api:
        print("FAIL: the headers' CUTUNE_API functions were not found (%d: %s)"
              % (len(api), sorted(api)))
        fail = 1
    extra = sorted(have - set(api))
    missing = sorted(set(api) - have)
    for name in extra:
        print("FAIL: %s exports %s, which no public header declares with CUTUNE_API"
              % (lib, name))
    for name in missing:
        print("FAIL: %s declares %s with CUTUNE_API, but %s does not export it"
              % (api[name], name, lib))
    calls = python_calls(python)
    for name in sorted(calls - set(api)):
        print("FAIL: the Python module calls %s, which is not in the documented API" % name)
        fail = 1
    if "cutune_open" not in calls:
        print("FAIL: no call of cutune_open found in %s" % " ".join(python))
        fail = 1
    if extra or missing:
        fail = 1
    if not shutil.which("objdump"):
        print("no objdump here: what links CUDA is not checked")
    else:
        for path in no_cuda:
            bad = cuda_links(path, nm)
            if len(bad) > 0:
                print("FAIL: %s links CUDA (%s): core/src/cudadl/ should open it at run time"
                      % (path, ", ".join(bad)))
                fail = 1
            else:
                print("%s links no CUDA library" % path)
    if not fail:
        print("libcutune.so exports exactly the %d documented functions; the Python module "
              "calls %d of them" % (len(api), len(calls)))
    return fail


if __name__ == "__main__":
    sys.exit(main())
