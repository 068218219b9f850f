"""The system-neutral half of the side-by-side drivers: workloads, timing and the command line.

Owns: the ``System`` / ``History`` / ``Sessions`` protocols a driver implements, the timed
workloads (append, read-newest-20 at growing sizes, trim, persist one message at growing
session lengths) and the dispatch that turns ``driver.py WORKLOAD ROOT PARAMS`` into one JSON
object on stdout. The fault workloads live in ``faults``.

Must not: import reverie or nanobot (each driver runs in its own virtual environment, and this
file is imported by both), or time anything outside the call being measured.

Invariants: both systems get byte-identical inputs (same texts, same tags, same sizes) and the
same timing code; every workload checks what it read, so a wrong answer fails the run loudly
instead of producing a fast figure.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol

TEXT = " ".join(
    [
        "The user prefers short answers and is planning a trip to Kyoto in April,",
        "staying near Demachiyanagi, and wants vegetarian places within walking distance.",
    ]
    * 2
)
"""Body of every entry and message (~310 characters, no trailing blank: nanobot strips it)."""

Params = Mapping[str, object]


class History(Protocol):
    """One system's history log, used only through that system's public classes."""

    def append(self, text: str) -> int:
        """Append one entry; return its cursor."""

    def read_after(self, cursor: int) -> list[tuple[int, str]]:
        """Return ``(cursor, content)`` of the entries after ``cursor``, in file order."""

    def set_dream_cursor(self, cursor: int) -> None:
        """Record that dream consumed everything up to ``cursor``."""

    def trim(self, keep: int) -> None:
        """Drop old entries dream has consumed, keeping ``keep``."""

    def close(self) -> None:
        """Release what the log holds open."""


class Sessions(Protocol):
    """One system's session storage, used only through its public classes."""

    def fill(self, key: str, count: int) -> None:
        """Give session ``key`` ``count`` messages, persisted (not timed)."""

    def open(self, key: str) -> None:
        """Open session ``key`` as an agent does when a turn starts (nanobot caches it)."""

    def persist(self, key: str, role: str, text: str) -> None:
        """Add one message to session ``key`` and make it durable, as an agent turn does."""

    def contents(self, key: str) -> list[str]:
        """Return the contents of session ``key`` as stored now."""

    def close(self) -> None:
        """Release what the store holds open."""


class System(Protocol):
    """A memory system under test: how to open its parts in a run folder."""

    name: str

    def version(self) -> str:
        """Return the installed version."""

    def history(self, root: Path) -> History:
        """Open (creating when needed) the history log of the workspace under ``root``."""

    def sessions(self, root: Path) -> Sessions:
        """Open (creating when needed) the session storage of the workspace under ``root``."""

    def history_file(self, root: Path) -> Path:
        """Return the path of the history file under ``root`` (for raw checks)."""


def entry_text(tag: str, body: str = TEXT) -> str:
    """Return the text of entry ``tag``; its first word is the tag, so it can be found again."""
    return f"{tag} {body}"


def tag_of(content: str) -> str:
    """Return the tag an entry or message was written with."""
    return content.split(" ", 1)[0]


def as_int(params: Params, name: str) -> int:
    """Return an integer parameter (the drivers take parameters as one JSON object)."""
    value = params[name]
    if not isinstance(value, int):
        raise TypeError(f"parameter {name} must be an integer, got {value!r}")
    return value


def as_float(params: Params, name: str) -> float:
    """Return a number parameter."""
    value = params[name]
    if not isinstance(value, int | float):
        raise TypeError(f"parameter {name} must be a number, got {value!r}")
    return float(value)


def as_ints(params: Params, name: str) -> list[int]:
    """Return a list-of-integers parameter."""
    value = params[name]
    if not isinstance(value, list) or not all(isinstance(item, int) for item in value):
        raise TypeError(f"parameter {name} must be a list of integers, got {value!r}")
    return [int(item) for item in value]


def sample_us(
    action: Callable[[], object], *, least: int, most: int, budget_s: float
) -> list[float]:
    """Time ``action`` repeatedly: at least ``least`` times, at most ``most``, ~``budget_s``."""
    samples: list[float] = []
    started = time.perf_counter()
    while len(samples) < most:
        begin = time.perf_counter_ns()
        action()
        samples.append((time.perf_counter_ns() - begin) / 1000)
        if len(samples) >= least and time.perf_counter() - started > budget_s:
            break
    return samples


def summary(samples: list[float]) -> dict[str, float]:
    """Median, 90th percentile and count of a list of microsecond samples."""
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return {"median": round(statistics.median(ordered), 3), "p90": round(p90, 3), "n": len(ordered)}


def raw_line(cursor: int, text: str) -> bytes:
    """The history line of an entry as both systems shape it (JSON object, one line)."""
    entry = {"cursor": cursor, "timestamp": "2026-01-01 00:00", "content": text}
    return (json.dumps(entry, ensure_ascii=False) + "\n").encode()


def run_append(system: System, root: Path, params: Params) -> dict[str, object]:
    """Time ``count`` appends to a fresh log, one sample per append.

    The physical limit is measured in the same process, interleaved append by append: one
    ``os.write`` of the same line to a file opened once with ``O_APPEND`` (``raw_append_us``;
    building the line is not timed). ``append_over_raw`` is the ratio of the two medians.
    """
    history = system.history(root)
    samples, raw = [], []
    fd = os.open(root / "raw-append.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for index in range(as_int(params, "count")):
            text = entry_text(f"a{index}")
            begin = time.perf_counter_ns()
            history.append(text)
            samples.append((time.perf_counter_ns() - begin) / 1000)
            line = raw_line(index + 1, text)
            begin = time.perf_counter_ns()
            os.write(fd, line)
            raw.append((time.perf_counter_ns() - begin) / 1000)
    finally:
        os.close(fd)
    history.close()
    appended, written = summary(samples), summary(raw)
    over = appended["median"] / written["median"] if written["median"] else 0.0
    return {"append_us": appended, "raw_append_us": written, "append_over_raw": round(over, 2)}


def _read_newest(history: History, last: int, budget_s: float) -> list[float]:
    def read() -> None:
        got = history.read_after(last - 20)
        if [cursor for cursor, _ in got] != list(range(last - 19, last + 1)):
            raise RuntimeError(f"read_after({last - 20}) returned {len(got)} wrong entries")

    return sample_us(read, least=5, most=300, budget_s=budget_s)


def run_scale(system: System, root: Path, params: Params) -> dict[str, object]:
    """Fill a log to each size in turn, timing a read of the 20 newest; then trim the largest."""
    history = system.history(root)
    budget = as_float(params, "budget_s")
    reads: dict[str, dict[str, float]] = {}
    filled = 0
    for size in as_ints(params, "sizes"):
        while filled < size:
            filled += 1
            if history.append(entry_text(f"f{filled}")) != filled:
                raise RuntimeError(f"append {filled} did not get cursor {filled}")
        reads[str(size)] = summary(_read_newest(history, filled, budget))
    keep = as_int(params, "keep")
    history.set_dream_cursor(filled - keep)
    begin = time.perf_counter_ns()
    history.trim(keep)
    trim_ms = (time.perf_counter_ns() - begin) / 1e6
    left = history.read_after(0)
    history.close()
    if [cursor for cursor, _ in left] != list(range(filled - keep + 1, filled + 1)):
        raise RuntimeError(f"trim kept {len(left)} entries, wanted the newest {keep}")
    return {"read_newest_20_us": reads, "trim_ms": round(trim_ms, 3), "trim_from": filled}


def _time_persist(sessions: Sessions, key: str, length: int, budget_s: float) -> list[float]:
    samples: list[float] = []
    started = time.perf_counter()
    for index in range(length, length + 300):
        role, text = ("user" if index % 2 == 0 else "assistant"), entry_text(f"p{index}")
        begin = time.perf_counter_ns()
        sessions.persist(key, role, text)
        samples.append((time.perf_counter_ns() - begin) / 1000)
        if len(samples) >= 5 and time.perf_counter() - started > budget_s:
            break
    return samples


def run_persist(system: System, root: Path, params: Params) -> dict[str, object]:
    """For each session length, time persisting one more message (add + durable save)."""
    sessions = system.sessions(root)
    budget = as_float(params, "budget_s")
    persist: dict[str, dict[str, float]] = {}
    for length in as_ints(params, "lengths"):
        key = f"bench:persist:{length}"
        sessions.fill(key, length)
        persist[str(length)] = summary(_time_persist(sessions, key, length, budget))
        if len(sessions.contents(key)) != length + persist[str(length)]["n"]:
            raise RuntimeError(f"session {key} does not hold every persisted message")
    sessions.close()
    return {"persist_one_us": persist}


Workload = Callable[[System, Path, Params], dict[str, object]]
Worker = Callable[[System, Path, Params], None]

TIMED_WORKLOADS: dict[str, Workload] = {
    "append": run_append,
    "scale": run_scale,
    "persist": run_persist,
}


def main(system: System, workloads: Mapping[str, Workload], workers: Mapping[str, Worker]) -> None:
    """Run ``argv[1]`` (a workload name) in folder ``argv[2]`` with JSON ``argv[3]``; print JSON.

    A workload prints one JSON object; a worker (a child process a fault workload starts)
    prints its acknowledgements line by line instead.
    """
    name, root, params = sys.argv[1], Path(sys.argv[2]), json.loads(sys.argv[3])
    if name in workers:
        workers[name](system, root, params)
        return
    if name not in workloads:
        raise SystemExit(f"unknown workload {name!r}; known: {', '.join(sorted(workloads))}")
    root.mkdir(parents=True, exist_ok=True)
    result = workloads[name](system, root, params)
    print(json.dumps({"system": system.name, "version": system.version(), **result}))
