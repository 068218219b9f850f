"""The supervisor's worker processes: start, SIGKILL, restart, reap, stop.

Each worker is ``python bench/soak.py --worker ID --generation G ...``; every start of a slot
is a new generation with its own ack file and stderr log. ``kill`` sends SIGKILL and waits for
the process to be gone (so the dream lock it may hold is free) before anything restarts it; the
kill times are kept, because the ledger check splits dream runs at kills. A worker that exits
non-zero on its own has crashed: that is a finding, its stderr tail is kept, and it is
restarted while the run lasts.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True, kw_only=True)
class FleetOptions:
    """What every worker is started with."""

    script: Path
    workspace: Path
    base_url: str
    acks: Path
    seed: int
    deadline: float
    max_actions: int
    timeout: float


@dataclass(slots=True)
class _Slot:
    worker: int
    generation: int = 0
    process: subprocess.Popen[bytes] | None = None
    finished: bool = False


@dataclass(slots=True)
class Fleet:
    """Worker processes on one workspace (see the module docstring)."""

    options: FleetOptions
    size: int
    kills: int = 0
    restarts: int = 0
    publish_kills: int = 0
    kill_times: list[float] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    _slots: list[_Slot] = field(default_factory=list)

    def start_all(self) -> None:
        """Start every worker."""
        self._slots = [_Slot(worker=n) for n in range(self.size)]
        for slot in self._slots:
            self._start(slot)

    def generation(self, worker: int) -> int:
        """The generation number of ``worker``'s current process."""
        return self._slots[worker].generation

    def all_finished(self) -> bool:
        """True when every worker ended on its own with status 0."""
        return all(slot.finished for slot in self._slots)

    def kill_and_restart(self, worker: int) -> None:
        """SIGKILL a running worker, wait for it, and start its next generation."""
        slot = self._slots[worker]
        if slot.process is None or slot.finished or slot.process.poll() is not None:
            return
        self._kill(slot)
        self._start(slot)
        self.restarts += 1

    def reap(self) -> None:
        """Notice workers that ended on their own; restart crashed ones."""
        for slot in self._slots:
            if slot.process is None or slot.finished:
                continue
            code = slot.process.poll()
            if code is None:
                continue
            if code == 0:
                slot.finished = True
                continue
            self.crashes.append(f"worker {slot.worker} generation {slot.generation}: {code}")
            self._start(slot)
            self.restarts += 1

    def stop(self, grace: float) -> None:
        """Wait up to ``grace`` seconds for workers to finish, then SIGKILL the rest."""
        end = time.monotonic() + grace
        for slot in self._slots:
            if slot.process is None:
                continue
            try:
                slot.process.wait(timeout=max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                self._kill(slot)
        self.reap_final()

    def reap_final(self) -> None:
        """Record crashes of workers that ended non-zero without being killed."""
        for slot in self._slots:
            code = None if slot.process is None else slot.process.returncode
            if code not in (None, 0, -signal.SIGKILL):
                self.crashes.append(f"worker {slot.worker} generation {slot.generation}: {code}")

    def logs(self) -> list[Path]:
        """Every worker stderr log written so far."""
        return sorted(self.options.acks.glob("*.log"))

    def _kill(self, slot: _Slot) -> None:
        assert slot.process is not None
        slot.process.send_signal(signal.SIGKILL)
        slot.process.wait()
        self.kills += 1
        self.kill_times.append(time.time())

    def _start(self, slot: _Slot) -> None:
        slot.generation += 1
        options = self.options
        command = [
            sys.executable,
            str(options.script),
            "--worker", str(slot.worker),
            "--generation", str(slot.generation),
            "--workspace", str(options.workspace),
            "--base-url", options.base_url,
            "--acks", str(options.acks),
            "--seed", str(options.seed),
            "--deadline", repr(options.deadline),
            "--max-actions", str(options.max_actions),
            "--timeout", repr(options.timeout),
        ]  # fmt: skip
        log = options.acks / f"w{slot.worker}-g{slot.generation}.log"
        with log.open("wb") as stderr:
            slot.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr)
