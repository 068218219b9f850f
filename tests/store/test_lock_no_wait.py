"""``ProcessLock.hold(timeout=0)``: one try, no waiting, for callers that report "busy"."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from reverie import LockTimeoutError
from reverie.storage.folder.locks import ProcessLock

HOLDER = """
import sys
from pathlib import Path
from reverie.storage.folder.locks import ProcessLock
lock = ProcessLock(Path(sys.argv[1]))
with lock.hold():
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_a_free_lock_is_taken_at_once_with_timeout_zero(tmp_path: Path) -> None:
    lock = ProcessLock(tmp_path / "x.lock")
    with lock.hold(timeout=0):
        pass
    with lock.hold(timeout=0):
        pass


def test_timeout_zero_refuses_at_once_when_another_process_holds_it(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdout=subprocess.PIPE,
        stdin=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdin is not None
    try:
        assert holder.stdout.readline().strip() == "held"
        lock = ProcessLock(path, timeout=60)
        with pytest.raises(LockTimeoutError) as caught, lock.hold(timeout=0):
            pass
        assert caught.value.timeout == 0
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.communicate(timeout=30)
    with ProcessLock(path).hold(timeout=0):
        pass


def test_timeout_zero_refuses_at_once_when_another_thread_holds_it(tmp_path: Path) -> None:
    lock = ProcessLock(tmp_path / "x.lock", timeout=60)
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with lock.hold():
            taken.set()
            release.wait()

    thread = threading.Thread(target=hold)
    thread.start()
    taken.wait()
    try:
        with pytest.raises(LockTimeoutError), lock.hold(timeout=0):
            pass
    finally:
        release.set()
        thread.join()


def test_two_lock_objects_on_one_file_in_one_process_exclude_each_other(tmp_path: Path) -> None:
    first, second = ProcessLock(tmp_path / "x.lock"), ProcessLock(tmp_path / "x.lock")
    with first.hold(), pytest.raises(LockTimeoutError), second.hold(timeout=0):
        pass
