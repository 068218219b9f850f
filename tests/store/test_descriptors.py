"""Descriptors kept open across appends: after a fork, under a replaced file, and on close."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from reverie.storage.folder import layout
from reverie.storage.folder.descriptors import KeptFile
from reverie.storage.folder.workspace import Workspace


def _open_in(root: Path) -> list[str]:
    """The files under ``root`` this process holds a descriptor on."""
    held = []
    for entry in Path("/proc/self/fd").iterdir():
        try:
            target = str(entry.readlink())
        except OSError:  # the listing's own descriptor, closed by now
            continue
        if target.startswith(str(root)):
            held.append(target)
    return sorted(held)


def _run_child(body: object) -> int:
    """Fork; the child runs ``body()`` and exits 0 (1 on any error); return its exit status."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover -- the child's coverage is not collected
        code = 1
        try:
            body()  # type: ignore[operator]
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _cursors(root: Path) -> list[int]:
    workspace = Workspace.open(root)
    try:
        return [entry.cursor for entry in workspace.history.entries()]
    finally:
        workspace.close()


def test_a_forked_child_appends_on_its_own_descriptors(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    workspace = Workspace.open(root, create=True)
    try:
        workspace.history.append("before the fork")  # every descriptor of the append is open
        assert _open_in(root / "memory")

        def child() -> None:
            workspace.history.append("from the child")
            workspace.close()

        assert _run_child(child) == 0
        workspace.history.append("from the parent, after")
    finally:
        workspace.close()

    assert _cursors(root) == [1, 2, 3]
    assert (root / layout.CURSOR).read_text(encoding="ascii") == "3"


def test_a_fork_while_another_thread_holds_the_lock_leaves_the_child_a_usable_lock(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    workspace = Workspace.open(root, create=True)
    lock = workspace.history._lock  # the lock the append takes
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with lock.hold():
            held.set()
            release.wait(10)

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert held.wait(10)

        def child() -> None:
            lock.timeout = 20.0  # the parent's flock is released below; its thread lock never
            workspace.history.append("from the child")

        pid = os.fork()
        if pid == 0:  # pragma: no cover -- the child
            code = 1
            try:
                child()
                code = 0
            finally:
                os._exit(code)
        time.sleep(0.2)  # the child waits on the file lock meanwhile (either way)
        release.set()
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        thread.join(10)
        workspace.history.append("from the parent")
    finally:
        release.set()
        thread.join(10)
        workspace.close()

    assert _cursors(root) == [1, 2]


def test_a_cursor_file_replaced_under_a_kept_descriptor_is_read_from_its_path(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    workspace = Workspace.open(root, create=True)
    floor = root / layout.CURSOR
    try:
        workspace.history.append("one")
        replacement = floor.with_name(".cursor.new")
        replacement.write_text("100", encoding="ascii")
        replacement.replace(floor)  # a new file at the path; the kept descriptor is stale

        assert workspace.history.append("two").cursor == 101
        assert floor.read_text(encoding="ascii") == "101"

        floor.unlink()
        assert workspace.history.append("three").cursor == 102  # the log's own lines count
        assert floor.read_text(encoding="ascii") == "102"  # made again
    finally:
        workspace.close()


def test_close_releases_every_descriptor_and_a_later_append_opens_them_again(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    workspace = Workspace.open(root, create=True)
    try:
        workspace.history.append("one")
        assert str(root / layout.CURSOR) in _open_in(root)
        assert str(root / layout.HISTORY) in _open_in(root)
        workspace.history.close()
        assert not _open_in(root / "memory")
        workspace.history.append("two")
        assert str(root / layout.CURSOR) in _open_in(root)
    finally:
        workspace.close()

    assert _open_in(root) == []
    assert _cursors(root) == [1, 2]


def test_a_kept_file_follows_its_path(tmp_path: Path) -> None:
    path = tmp_path / "f"
    kept = KeptFile(path, os.O_RDWR)
    try:
        assert kept.open() is None  # absent: nothing opened, nothing made
        assert not path.exists()
        made = kept.open(create=True)
        assert made is not None
        assert made[1] == 0
        os.pwrite(made[0], b"old", 0)
        assert kept.open() == (made[0], 3)  # same file: same descriptor
        assert kept.holds(made[0])

        path.with_name("g").write_bytes(b"newer")
        path.with_name("g").replace(path)
        again = kept.open()
        assert again is not None
        assert os.pread(again[0], 16, 0) == b"newer"
        assert again[1] == 5

        path.unlink()
        assert kept.open() is None
        assert not kept.is_open
    finally:
        kept.close()
    assert not kept.is_open


def test_a_kept_file_forgets_its_descriptor_in_a_forked_child(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"7")
    kept = KeptFile(path, os.O_RDWR)
    opened = kept.open()
    assert opened is not None

    def child() -> None:
        if kept.is_open:  # the parent's descriptor must not be used here
            raise AssertionError("the child kept its parent's descriptor")
        mine = kept.open()
        assert mine is not None
        os.pwrite(mine[0], b"8", 0)

    try:
        assert _run_child(child) == 0
        assert kept.holds(opened[0])  # the parent's is untouched
        assert os.pread(opened[0], 4, 0) == b"8"
    finally:
        kept.close()
