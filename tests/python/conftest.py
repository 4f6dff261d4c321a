"""pytest set-up: the module under test is the installed `cutune` package (a wheel), or,
in a build tree, python/ with CUTUNE_LIBRARY naming build/core/libcutune.so (meson test
sets both)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_db  # noqa: E402


@pytest.fixture
def fixture_path(tmp_path):
    return fixture_db.build(str(tmp_path / "fixture.db"))


@pytest.fixture
def default_db_at(monkeypatch):
    """A function that makes a database the package's default (CUTUNE_DB) with a fresh default
    handle, closed again when the test ends."""
    import cutune
    from cutune import _torch

    def reset():
        if cutune._default is not None:
            cutune._default.close()
        cutune._default = None
        _torch._tls.__dict__.clear()

    def at(path):
        monkeypatch.setenv("CUTUNE_DB", path)
        reset()
        return path

    yield at
    reset()
