"""The cutune Python module without a GPU: lookups down the ladder from a fixture database,
devices named by UUID or name, the best configs, misses recorded as requests, the errors
and the bad input a launch refuses before it touches CUDA, and the ctypes structures
against the C headers."""
import ctypes
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

import cutune
import fixture_db
from cutune import _lib

H100, H200, A100 = fixture_db.H100, fixture_db.H200, fixture_db.A100


def requests(path):
    return fixture_db.query(path, "SELECT device_uuid, op, size, answered_by, count FROM requests"
                                  " ORDER BY id")


def test_exact_lookup_by_uuid_and_by_name(fixture_path):
    with cutune.open(fixture_path) as h:
        for device in (H100[0], "h100"):
            r = h.lookup("matmul", "1024x1024x1024", device=device)
            assert r.match == "exact"
            assert r.variant == "matmul_tiled"
            assert r.config == {"TILE": 32, "ROWS": 8, "PAD": 1}  # the faster of two trials
            assert r.config_text == "TILE=32,ROWS=8,PAD=1"
            assert r.median_ms == pytest.approx(0.25)
            assert r.device_uuid == H100[0] and r.device_name == H100[1]
            assert r.tuned_size == "1024x1024x1024" and r.distance == 0
    assert requests(fixture_path) == []  # an exact answer is no request


def test_sizes_as_int_and_tuple(fixture_path):
    with cutune.open(fixture_path) as h:
        assert h.lookup("matmul", (1024, 1024, 1024), device="H100").match == "exact"
        assert h.lookup("matmul", [1024, 1024, 1024], device="H100").match == "exact"
        r = h.lookup("reduce_sum", 1048576, device="H100")
        assert r.match == "exact" and r.config["VEC"] == 4


def test_sizes_follow_the_ops_rules_as_the_cli_does(fixture_path):
    # `cutune run matmul --size 4096` means 4096x4096x4096, and so does a lookup of 4096
    with cutune.open(fixture_path) as h:
        for size in (4096, "4096"):
            r = h.lookup("matmul", size, device="H100")
            assert r.match == "exact" and r.size == "4096x4096x4096"
            assert r.tuned_size == "4096x4096x4096" and r.variant == "matmul_async"
        r = h.lookup("transpose", 8192, device="A100")  # transpose: N is NxN
        assert r.match == "exact" and r.size == "8192x8192"
        # a miss is recorded with the size in full, as `cutune run --pending` tunes it
        assert h.lookup("matmul", 512, device="A100").match == "miss"
    assert requests(fixture_path) == [(A100[0], "matmul", "512x512x512", "none", 1)]


def test_unknown_ops_and_refused_sizes_are_no_requests(fixture_path):
    with cutune.open(fixture_path) as h:
        r = h.lookup("no_such_op", 1024, device="H100")
        assert r.match == "miss" and not r.recorded
        for op, size in (("matmul", "64x64"), ("matmul", (1, 2, 3, 4)), ("transpose", "1x2x3")):
            with pytest.raises(cutune.CutuneError) as e:
                h.lookup(op, size, device="H100")
            assert e.value.name == "invalid" and "not a size of op " + op in str(e.value)
        with pytest.raises(cutune.CutuneError) as e:
            h.lookup("matmul", "12xx4", device="H100")
        assert e.value.name == "parse"
    assert requests(fixture_path) == []  # each of them once stayed pending forever


def test_nearest_same_arch_and_miss_are_recorded(fixture_path):
    with cutune.open(fixture_path) as h:
        near = h.lookup("matmul", "1500x1500x1500", device="H100")
        assert near.match == "nearest" and near.tuned_size == "1024x1024x1024"
        assert near.distance > 0 and near.recorded
        assert near.checked_size == "1023x1023x1023"  # checked beyond its own size
        arch = h.lookup("reduce_sum", "1048576", device="H200")
        assert arch.match == "same_arch" and arch.device_uuid == H100[0]
        miss = h.lookup("matmul", "512x512x512", device="A100")
        assert miss.match == "miss" and not miss
        assert miss.variant is None and miss.config is None and miss.median_ms == 0
        assert miss.recorded
    got = requests(fixture_path)
    assert (H100[0], "matmul", "1500x1500x1500", "nearest", 1) in got
    assert (H200[0], "reduce_sum", "1048576", "same_arch", 1) in got
    assert (A100[0], "matmul", "512x512x512", "none", 1) in got
    assert len(got) == 3


def test_fallback_false_reports_a_miss(fixture_path):
    with cutune.open(fixture_path) as h:
        r = h.lookup("matmul", "1500x1500x1500", device="H100", fallback=False)
        assert r.match == "miss" and r.config is None
        assert h.lookup("matmul", (1024,) * 3, device="H100", fallback=False).match == "exact"


def test_no_recording_when_asked(fixture_path):
    with cutune.open(fixture_path, record_requests=False) as h:
        assert h.lookup("matmul", 512, device="A100").match == "miss"
    assert requests(fixture_path) == []


def test_yardstick_of_a_size(fixture_path):
    with cutune.open(fixture_path, record_requests=False) as h:
        for device in (H100[0], "h100"):
            assert h.yardstick("matmul", 1024, device=device) == ("cuBLAS SGEMM", 0.3)
        assert h.yardstick("matmul", (4096, 4096, 4096), device=H100[0]) == ("cuBLAS SGEMM",
                                                                              5.0)
        assert h.yardstick("matmul", 2048, device=H100[0]) is None  # never another size's
        assert h.yardstick("matmul", 1024, device=H200[0]) is None  # nor another model's
        with pytest.raises(cutune.CutuneError) as e:
            h.yardstick("matmul", "12x", device=H100[0])
        assert e.value.name == "parse"


@pytest.mark.parametrize("match, best, yardstick, margin, want", [
    ("exact", 0.25, 0.3, 0.03, True),            # faster by more than the margin
    ("same_model", 0.25, 0.3, 0.03, True),
    ("exact", 0.3 / 1.03, 0.3, 0.03, True),      # just the margin
    ("exact", 0.295, 0.3, 0.03, False),          # faster, but within the margin
    ("exact", 0.3, 0.3, 0.03, False),            # a tie is torch's
    ("exact", 0.0524, 0.0464, 0.03, False),      # slower (an H100's bf16 4096x1024x4096)
    ("exact", 0.3, 0.3, 0.0, True),              # no margin: a tie routes
    ("exact", 0.25, None, 0.03, True),           # no yardstick recorded: as before
    ("same_model", 9.0, 0.0, 0.03, True),
    ("nearest", 0.1, 1.0, 0.03, False),          # another size's config: never
    ("same_arch", 0.1, None, 0.03, False),
    ("miss", 0.0, None, 0.03, False),
])
def test_prefer_tuned(match, best, yardstick, margin, want):
    assert cutune.prefer_tuned(match, best, yardstick, margin) is want


def test_prefer_tuned_host_bound():
    """A GEMM shorter than a call's host time through use() stays torch's, however much
    faster the tuned kernel (an H200's 4096x1024x1024-bf16-nt: 0.486x through cutune)."""
    assert cutune.prefer_tuned("exact", 0.0140, 0.0151) is False
    assert cutune.prefer_tuned("exact", 0.0050, 0.0151) is False
    assert cutune.prefer_tuned("exact", 0.0365, 0.0394) is True   # kernel-bound: routed
    assert cutune.prefer_tuned("exact", 0.0140, 0.0151, min_ms=0) is True


def test_prefers_tuned_on_the_database(fixture_path):
    """What use() decides per shape: tuned and faster than the yardstick by 3%, or tuned with
    none recorded."""
    assert cutune.prefer_tuned("exact", 1.0, 1.0) is False  # the default margin is > 0
    with cutune.open(fixture_path, record_requests=False) as h:
        assert h.prefers_tuned("matmul", 1024, device=H100[0])      # 0.25 vs 0.3 ms
        assert not h.prefers_tuned("matmul", 4096, device=H100[0])  # 5.5 vs 5.0 ms
        assert h.prefers_tuned("matmul", 4096, device=H100[0], margin=-0.5)  # 5.5 <= 10
        # a floor above the yardstick's 0.3 ms keeps 1024 torch's; a graph's (0) does not
        assert not h.prefers_tuned("matmul", 1024, device=H100[0], min_ms=0.5)
        assert h.prefers_tuned("matmul", 1024, device=H100[0], min_ms=0)
        assert h.prefers_tuned("matmul", 2048, device=H200[0])      # none recorded
        assert not h.prefers_tuned("matmul", 2048, device=H100[0])  # nearest: torch's
        assert not h.prefers_tuned("matmul", 64, device=H100[0])


def test_best_lists_every_key(fixture_path):
    with cutune.open(fixture_path) as h:
        rows = h.best(as_frame=False)
        assert len(rows) == 5  # six trials, two of them for one key
        keys = {(r["device_uuid"], r["op"], r["size"]) for r in rows}
        assert (H100[0], "matmul", "1024x1024x1024") in keys
        tiled = [r for r in rows if r["size"] == "1024x1024x1024"][0]
        assert tiled["config"] == "TILE=32,ROWS=8,PAD=1" and tiled["median_ms"] == 0.25
        assert len(h.best(op="matmul", as_frame=False)) == 3
        assert [r["op"] for r in h.best(device="A100", as_frame=False)] == ["transpose"]
        assert h.best(op="topk", as_frame=False) == []
        with pytest.raises(cutune.NotFoundError, match="no device"):
            h.best(device="V100")


def test_best_as_dataframe(fixture_path):
    pandas = pytest.importorskip("pandas")
    with cutune.open(fixture_path) as h:
        df = h.best()
        assert isinstance(df, pandas.DataFrame)
        assert len(df) == 5 and "config" in df.columns
        assert df[df["op"] == "transpose"]["variant"].tolist() == ["transpose_tiled"]


def test_errors_carry_the_library_message(fixture_path, tmp_path):
    with pytest.raises(cutune.NotFoundError) as e:
        cutune.open(str(tmp_path / "none.db"))
    assert "none.db" in str(e.value) and e.value.code == _lib.ERR_NOT_FOUND
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(cutune.CutuneError) as e:
        cutune.open(str(junk))
    assert e.value.name == "db" and "junk.db" in str(e.value)
    with cutune.open(fixture_path) as h:
        with pytest.raises(cutune.CutuneError) as e:
            h.lookup("matmul", "12xx4", device="H100")
        assert e.value.name == "parse"
        with pytest.raises(cutune.CutuneError) as e:
            h.lookup("matmul", 1024, device="NVIDIA")  # three devices match
        assert e.value.name == "invalid" and "H200" in str(e.value)
        with pytest.raises(cutune.NotFoundError):
            h.lookup("matmul", 1024, device="GPU-00000000")
        with pytest.raises(TypeError):
            h.lookup("matmul", 1.5, device="H100")


def test_calls_after_close_raise(fixture_path):
    h = cutune.open(fixture_path)
    assert h.lookup("matmul", (1024,) * 3, device="H100")
    h.close()
    h.close()  # twice is fine
    assert h.closed
    for call in (lambda: h.lookup("matmul", 1024, device="H100"), lambda: h.best(),
                 lambda: h.matmul(None, None), lambda: h.launch("matmul", 1024)):
        with pytest.raises(cutune.CutuneError, match="closed"):
            call()


class FakeCai:
    """A device array as far as __cuda_array_interface__ goes (never dereferenced)."""

    def __init__(self, shape, strides=None, device=0, typestr="<f4"):
        self.__cuda_array_interface__ = {"data": (0x7f0000000000, False), "shape": shape,
                                         "typestr": typestr, "strides": strides, "version": 3}
        self._device = device

    def __dlpack_device__(self):
        return (2, self._device)


def test_launch_refuses_bad_arrays_before_cuda(fixture_path):
    np = pytest.importorskip("numpy")
    with cutune.open(fixture_path) as h:
        a, b = FakeCai((64, 32)), FakeCai((32, 16))
        with pytest.raises(ValueError, match="not C-contiguous"):
            h.matmul(FakeCai((64, 32), strides=(4, 256)), b)
        with pytest.raises(ValueError, match="device 1"):
            h.matmul(a, FakeCai((32, 16), device=1))
        with pytest.raises(ValueError, match="device 1"):
            h.launch("matmul", (64, 16, 32), a, FakeCai((32, 16), device=1), device=0)
        with pytest.raises(ValueError, match="not on a CUDA device"):
            h.matmul(np.ones((4, 4), np.float32), np.ones((4, 4), np.float32))
        with pytest.raises(TypeError, match="not a CUDA device array"):
            h.matmul([[1.0]], [[1.0]])
        with pytest.raises(TypeError, match="float32"):
            h.matmul(FakeCai((4, 4), typestr="<f8"), FakeCai((4, 4), typestr="<f8"))
        with pytest.raises(ValueError, match="shape"):
            h.matmul(a, FakeCai((33, 16)))
        with pytest.raises(TypeError, match="pass out="):
            h.matmul(a, b)  # cannot allocate like a plain CAI object
        # a bias: fp16 and bf16 alone, a vector of N of a's type, refused before any launch
        c = FakeCai((64, 16))
        with pytest.raises(TypeError, match="float16 and bfloat16 only"):
            h.matmul(a, b, out=c, bias=FakeCai((16,)))
        a16, b16, c16 = (FakeCai(s, typestr="<f2") for s in ((64, 32), (32, 16), (64, 16)))
        with pytest.raises(ValueError, match="bias must be a vector of 16 <f2"):
            h.matmul(a16, b16, out=c16, bias=FakeCai((15,), typestr="<f2"))
        with pytest.raises(ValueError, match="bias must be a vector of 16 <f2"):
            h.matmul(a16, b16, out=c16, bias=FakeCai((16,)))


def test_launch_refuses_ints_a_c_int_cannot_hold(fixture_path):
    # ctypes.c_int(2**31) is -2**31: a kernel would run on a wrapped size
    with cutune.open(fixture_path) as h:
        a, b, c = FakeCai((64, 32)), FakeCai((32, 16)), FakeCai((64, 16))
        for bad in (2 ** 31, -2 ** 31 - 1, 2 ** 64):
            with pytest.raises(OverflowError, match="argument 4 is %d, outside a C int" % bad):
                h.launch("matmul", (64, 16, 32), a, b, c, bad, 16, 32, device=0)
    assert cutune._c_int(2 ** 31 - 1, 0, "matmul").value == 2 ** 31 - 1
    assert cutune._c_int(-2 ** 31, 0, "matmul").value == -2 ** 31


def test_lookup_by_ordinal_without_a_gpu(fixture_path):
    if os.path.exists("/dev/nvidia0"):
        pytest.skip("this machine has a GPU")
    with cutune.open(fixture_path) as h:
        with pytest.raises(cutune.NoDeviceError) as e:
            h.lookup("matmul", 1024, device=0)
        assert e.value.name == "no_device"


FORBID_LOOKUP = """
import sys, cutune
with cutune.open(sys.argv[1]) as h:
    r = h.lookup("matmul", "1500x1500x1500", device=sys.argv[2])
    h.best()
print(r.match, r.config_text)
"""


def test_lookups_by_name_load_no_cuda(fixture_path):
    """A lookup by device name or UUID opens neither the CUDA runtime nor NVRTC: with the
    loader's test hook set, an attempt would abort (core/src/cudadl/cudafind.h); a lookup by
    ordinal must ask the runtime, and does abort, which shows the hook is live. (cuBLASLt is
    opened where it is installed, by the matmul_cublaslt plugin as the handle loads it: its
    version names that cuBLASLt.)"""
    env = dict(os.environ, CUTUNE_CUDADL_FORBID="cudart,nvrtc")
    ok = subprocess.run([sys.executable, "-c", FORBID_LOOKUP, fixture_path, "h100"], env=env,
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.split() == ["nearest", "TILE=32,ROWS=8,PAD=1"]
    by_ordinal = subprocess.run(
        [sys.executable, "-c", FORBID_LOOKUP.replace("device=sys.argv[2]", "device=0"),
         fixture_path], env=env, capture_output=True, text=True)
    assert by_ordinal.returncode != 0
    assert "CUTUNE_CUDADL_FORBID is set, but libcudart.so." in by_ordinal.stderr


LAYOUT_C = r"""
#include <stddef.h>
#include <stdio.h>
#include "cutune/lookup.h"
#define F(T, f) printf(#T " " #f " %zu\n", offsetof(T, f))
int main(void)
{
    printf("CutuneError size %zu\nCutuneDeviceInfo size %zu\n", sizeof(CutuneError),
           sizeof(CutuneDeviceInfo));
    printf("CutuneLookupSettings size %zu\nCutuneLookupResult size %zu\n",
           sizeof(CutuneLookupSettings), sizeof(CutuneLookupResult));
    F(CutuneError, msg); F(CutuneDeviceInfo, uuid); F(CutuneDeviceInfo, total_mem);
    F(CutuneDeviceInfo, runtime_version); F(CutuneLookupSettings, plugin_distance);
    F(CutuneLookupResult, config); F(CutuneLookupResult, median_ms);
    F(CutuneLookupResult, trial_id); F(CutuneLookupResult, recorded);
    return 0;
}
"""


def test_ctypes_structures_match_the_headers(tmp_path):
    cc = shutil.which(os.environ.get("CC", "cc"))
    include = os.path.join(fixture_db.ROOT, "core", "include")
    if not cc or not os.path.isdir(include):
        pytest.skip("no C compiler or no source tree")
    src, exe = tmp_path / "layout.c", tmp_path / "layout"
    src.write_text(LAYOUT_C)
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}  # see tests/meson.build
    subprocess.run([cc, "-I", include, str(src), "-o", str(exe)], check=True, env=env)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True, env=env).stdout
    types = {"CutuneError": _lib.Error, "CutuneDeviceInfo": _lib.DeviceInfo,
             "CutuneLookupSettings": _lib.Settings, "CutuneLookupResult": _lib.Result}
    lines = out.split("\n")
    assert len([l for l in lines if l]) == 13
    for line in filter(None, lines):
        name, field, value = line.split()
        t = types[name]
        got = ctypes.sizeof(t) if field == "size" else getattr(t, field).offset
        assert got == int(value), line


def test_create_db_makes_an_empty_database_that_records(tmp_path):
    path = str(tmp_path / "sub" / "fresh.db")
    with pytest.raises(cutune.NotFoundError):
        cutune.open(path)  # open() never makes a file
    cutune.create_db(path)
    cutune.create_db(path)  # there already: fine
    with cutune.open(path):
        pass  # it opens now
    rows = sqlite3.connect(path).execute("SELECT count(*) FROM trials").fetchone()[0]
    assert rows == 0
    bad = tmp_path / "not-a-db"
    bad.write_text("hello")
    with pytest.raises(cutune.CutuneError):
        cutune.create_db(str(bad))
