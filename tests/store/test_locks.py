from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reverie import LockTimeoutError
from reverie.storage.folder.locks import ProcessLock

HOLDER = """
import sys, time
from pathlib import Path
from reverie.storage.folder.locks import ProcessLock
lock = ProcessLock(Path(sys.argv[1]))
with lock.hold():
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_threads_are_serialised(tmp_path: Path) -> None:
    lock = ProcessLock(tmp_path / "x.lock")
    inside = 0
    overlaps = 0

    def work() -> None:
        nonlocal inside, overlaps
        for _ in range(200):
            with lock.hold():
                inside += 1
                if inside > 1:
                    overlaps += 1
                inside -= 1

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert overlaps == 0


def test_reacquiring_in_the_same_thread_raises_instead_of_deadlocking(tmp_path: Path) -> None:
    lock = ProcessLock(tmp_path / "x.lock")
    with lock.hold(), pytest.raises(RuntimeError, match="already held"), lock.hold():
        pass


def test_another_process_holding_the_lock_times_us_out(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), "2"], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
    lock = ProcessLock(path, timeout=0.2)
    with pytest.raises(LockTimeoutError, match="could not lock"), lock.hold():
        pass
    holder.kill()
    holder.communicate()
    # The kernel released the dead holder's lock.
    with lock.hold():
        pass
    lock.close()


def test_a_thread_waiting_too_long_times_out(tmp_path: Path) -> None:
    lock = ProcessLock(tmp_path / "x.lock", timeout=0.05)
    errors: list[Exception] = []
    with lock.hold():

        def waiter() -> None:
            try:
                with lock.hold():
                    pass
            except LockTimeoutError as exc:
                errors.append(exc)

        thread = threading.Thread(target=waiter)
        thread.start()
        thread.join()
    assert len(errors) == 1


def test_waiting_process_gets_the_lock_when_released(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), "0.2"], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    holder.stdout.readline()
    lock = ProcessLock(path, timeout=30)
    started = time.monotonic()
    with lock.hold():
        waited = time.monotonic() - started
    holder.communicate()
    assert waited > 0  # it had to wait for the holder, and then got in


def test_an_unopenable_lock_file_is_a_storage_error(tmp_path: Path) -> None:
    from reverie import StorageError

    lock = ProcessLock(tmp_path / "missing" / "x.lock")
    with pytest.raises(StorageError, match="lock file"), lock.hold():
        pass
