"""Fixtures for the viewer: the sample workspace, the viewer served on loopback, a browser.

The browser is Debian's Chromium driven by Playwright (``executable_path``; Playwright never
downloads a browser here). Without ``/usr/bin/chromium`` the browser tests skip with the
reason, except in CI (``CI=true``), where a missing browser is a failure: ``.ci/run``
installs it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from reverie import MemoryEngine
from reverie.viewer import RunningViewer, serve_viewer
from tests.viewer.sample import build, reopen

CHROMIUM = Path(os.environ.get("REVERIE_CHROMIUM", "/usr/bin/chromium"))
TOKEN = "test-token-0123456789"


@pytest.fixture(scope="session")
def sample_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample workspace, built once; tests get their own copy."""
    root = tmp_path_factory.mktemp("viewer-sample") / "ws"
    build(root).close()
    return root


@pytest.fixture
def sample(sample_template: Path, tmp_path: Path) -> Iterator[MemoryEngine]:
    root = tmp_path / "ws"
    shutil.copytree(sample_template, root, symlinks=True)
    engine = reopen(root)
    yield engine
    engine.close()


@pytest.fixture
def viewer(sample: MemoryEngine) -> Iterator[RunningViewer]:
    with serve_viewer(sample, TOKEN, author="Ada <ada@example.org>") as running:
        yield running


def chromium_or_skip() -> Path:
    """The Chromium binary, or a skip (a failure in CI) saying why there is none."""
    if CHROMIUM.is_file():
        return CHROMIUM
    reason = f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run does)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests cannot run in CI: {reason}")
    pytest.skip(reason)
