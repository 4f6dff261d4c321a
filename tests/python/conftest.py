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
