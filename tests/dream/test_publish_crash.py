"""Publish is all-or-nothing across SIGKILL: after recovery every file is old or every file new.

The killed publishers are forked from one warm parent (``tests/forkserver.py``), so a round
costs the publishing and the kill, not an interpreter start.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reverie.storage.folder.atomic import atomic_write_text
from reverie.storage.folder.cursors import DreamCursor
from reverie.storage.folder.dream_journal import DEFAULT_JOURNAL, finish_publish, recover_publish
from reverie.storage.folder.workspace import Workspace
from tests.dream.publish_worker import PATHS, content
from tests.forkserver import Server


@pytest.fixture
def server() -> Iterator[Server]:
    forks = Server("tests.dream.publish_worker")
    yield forks
    forks.close()


def _generations(root: Path) -> dict[str, int]:
    found = {}
    for path in PATHS:
        first = (root / path).read_text().split("\n", 1)[0]
        assert first.startswith(f"file {PATHS.index(path)} generation "), first
        found[path] = int(first.rsplit(" ", 1)[1])
        assert (root / path).read_text() == content(path, found[path])
    return found


def _recover_like_the_caller(root: Path) -> None:
    journal = root / DEFAULT_JOURNAL
    recovered = recover_publish(root, journal)
    if recovered is not None:
        assert recovered.trigger == "crash-test"
        assert set(recovered.files) == set(PATHS)
        DreamCursor(root / "memory" / ".dream_cursor").write(recovered.cursor)
        finish_publish(journal)


@pytest.mark.slow
def test_sigkill_at_random_moments_never_leaves_a_mix_after_recovery(
    tmp_path: Path, server: Server
) -> None:
    root = tmp_path / "ws"
    Workspace.open(root, create=True).close()
    for path in PATHS:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(root / path, content(path, 0))
    rng = random.Random(8)
    mid_publish = 0
    window = 0.05  # widened while kills land before any publish (a loaded machine is slow),
    # narrowed again once they land inside one
    for attempt in range(60):
        before = DreamCursor(root / "memory" / ".dream_cursor").read()
        worker = server.spawn(str(root))
        assert worker.readline() == "ready\n"
        time.sleep(rng.uniform(0.0, window))
        worker.kill()
        worker.finish()
        landed = (root / DEFAULT_JOURNAL).exists()
        mid_publish += landed
        _recover_like_the_caller(root)
        generations = _generations(root)
        assert len(set(generations.values())) == 1, generations
        assert DreamCursor(root / "memory" / ".dream_cursor").read() == generations["SOUL.md"]
        leftovers = list(root.rglob("*.rvtmp"))
        assert leftovers == []
        progressed = landed or DreamCursor(root / "memory" / ".dream_cursor").read() > before
        window = max(0.05, window / 2) if progressed else min(window * 2, 2.0)
        if attempt >= 29 and mid_publish > 0 and generations["SOUL.md"] > 0:
            break
    assert DreamCursor(root / "memory" / ".dream_cursor").read() > 0
    assert mid_publish > 0, "no kill landed inside a publish; widen the window"
