"""Fault workloads of the side-by-side drivers: concurrent writers, a reader, SIGKILL.

Owns: starting the child processes of a fault workload (each is the same driver script in a
``worker-*`` mode, see ``workers``), the start barrier that makes them race for real, and the
checks that count what went wrong: duplicate cursors, entries a cursor-following reader never
saw, acknowledged lines or messages missing afterwards, unreadable files, leftover temp files.

Must not: import reverie or nanobot (this file runs in both virtual environments), or judge a
system by anything but its files and its own public read calls.

Invariants: only whole acknowledgement lines count (a kill may cut the last one); entries and
messages are recognised by their tag (first word); files are checked after the system has
been reopened, since reopening is when a system may repair.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from harness import Params, System, Workload, as_int, tag_of
from workers import SHARED_KEY

CHILD_TIMEOUT_S = 300.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Child:
    """A worker process and the files its stdout and stderr go to."""

    process: subprocess.Popen[bytes]
    out: Path
    err: Path


def _spawn(root: Path, mode: str, params: dict[str, object], name: str) -> Child:
    folder = root / "out"
    folder.mkdir(exist_ok=True)
    out, err = folder / f"{name}.out", folder / f"{name}.err"
    command = [sys.executable, sys.argv[0], mode, str(root), json.dumps(params)]
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(command, stdout=stdout, stderr=stderr)
    return Child(process=process, out=out, err=err)


def _failed(child: Child, what: str) -> RuntimeError:
    tail = child.err.read_text(encoding="utf-8", errors="replace")[-2000:]
    return RuntimeError(f"{child.out.stem} {what} (exit {child.process.returncode}):\n{tail}")


def _wait_ready(children: list[Child]) -> None:
    deadline = time.monotonic() + CHILD_TIMEOUT_S
    for child in children:
        while not child.out.read_bytes().startswith(b"ready\n"):
            if child.process.poll() is not None:
                raise _failed(child, "exited before it was ready")
            if time.monotonic() > deadline:
                raise _failed(child, "was not ready in time")
            time.sleep(0.002)


def _wait_ok(child: Child) -> None:
    if child.process.wait(timeout=CHILD_TIMEOUT_S) != 0:
        raise _failed(child, "failed")


def _acks(child: Child, kind: str) -> list[str]:
    """Tags a worker acknowledged for ``kind`` (only whole lines: a kill may cut the last)."""
    lines = child.out.read_bytes().decode("utf-8", errors="replace").split("\n")[:-1]
    return [line.split("\t")[1] for line in lines if line.startswith(kind + "\t")]


def _raw_history(path: Path) -> tuple[list[tuple[int, str]], int]:
    """Parse a history file as bytes: ``(cursor, tag)`` per valid line, and the bad-line count."""
    good: list[tuple[int, str]] = []
    bad = 0
    for line in path.read_bytes().split(b"\n"):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            good.append((int(record["cursor"]), tag_of(str(record["content"]))))
        except (ValueError, KeyError, TypeError):
            bad += 1
    return good, bad


def check_files(root: Path) -> dict[str, object]:
    """Count unreadable files, bad lines and temp files under ``root`` (its out/ excluded)."""
    unreadable: list[str] = []
    temps: list[str] = []
    bad_lines = 0
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = path.relative_to(root)
        if relative.parts[0] == "out" or ".git" in relative.parts:
            continue
        if path.name.endswith((".tmp", ".rvtmp")):
            temps.append(str(relative))
        elif path.suffix in (".jsonl", ".journal"):
            bad = _bad_json_lines(path.read_bytes())
            bad_lines += bad
            if bad:
                unreadable.append(str(relative))
        elif path.name in (".cursor", ".dream_cursor") and not _is_int(path.read_bytes()):
            unreadable.append(str(relative))
    return {
        "unreadable_files": len(unreadable),
        "unreadable_names": unreadable,
        "bad_lines": bad_lines,
        "temp_files": len(temps),
        "temp_names": temps[:20],
    }


def _bad_json_lines(data: bytes) -> int:
    lines = data.split(b"\n")
    bad = 1 if lines[-1].strip() else 0  # a last line without its newline is torn
    for line in lines[:-1]:
        if line.strip():
            try:
                if not isinstance(json.loads(line), dict):
                    bad += 1
            except ValueError:
                bad += 1
    return bad


def _is_int(data: bytes) -> bool:
    try:
        int(data.strip())
    except ValueError:
        return False
    return True


def run_concurrent_history(system: System, root: Path, params: Params) -> dict[str, object]:
    """Writers append at once while a reader follows the cursor in batches, as dream does."""
    system.history(root).close()
    count = as_int(params, "count")
    writers = [
        _spawn(root, "worker-append", {"prefix": f"w{i}-", "count": count}, f"writer{i}")
        for i in range(as_int(params, "procs"))
    ]
    reader = _spawn(root, "worker-read", {"batch": as_int(params, "batch")}, "reader")
    _wait_ready([*writers, reader])
    (root / "go").touch()
    for writer in writers:
        _wait_ok(writer)
    (root / "done").touch()
    _wait_ok(reader)
    acked = {tag for writer in writers for tag in _acks(writer, "h")}
    report = json.loads(reader.out.read_text(encoding="utf-8").splitlines()[-1])
    lines, bad = _raw_history(system.history_file(root))
    cursors = [cursor for cursor, _tag in lines]
    shared = Counter(cursors)
    return {
        "acked": len(acked),
        "lines": len(lines),
        "bad_lines": bad,
        "duplicate_cursors": len(cursors) - len(shared),
        "entries_sharing_a_cursor": sum(n for n in shared.values() if n > 1),
        "out_of_order": sum(1 for a, b in pairwise(cursors) if b <= a),
        "missed_by_reader": len(acked - set(report["seen"])),
        "lost_lines": len(acked - {tag for _cursor, tag in lines}),
        "reader_polls": report["polls"],
    }


def run_concurrent_session(system: System, root: Path, params: Params) -> dict[str, object]:
    """Processes persist messages into one session at once; count what a reload lacks."""
    system.sessions(root).close()
    count, pause = as_int(params, "count"), as_int(params, "pause_us")
    writers = [
        _spawn(
            root,
            "worker-session",
            {"prefix": f"s{i}-", "count": count, "pause_us": pause},
            f"session{i}",
        )
        for i in range(as_int(params, "procs"))
    ]
    _wait_ready(writers)
    (root / "go").touch()
    for writer in writers:
        _wait_ok(writer)
    acked = {tag for writer in writers for tag in _acks(writer, "s")}
    sessions = system.sessions(root)
    found = {tag_of(text) for text in sessions.contents(SHARED_KEY)}
    sessions.close()
    return {"acked": len(acked), "found": len(found), "lost_messages": len(acked - found)}


def run_kill(system: System, root: Path, params: Params) -> dict[str, object]:
    """SIGKILL a worker (history appends + session saves) again and again, then check."""
    system.history(root).close()
    rng = random.Random(as_int(params, "seed"))
    low, high = as_int(params, "min_ms") / 1000, as_int(params, "max_ms") / 1000
    children = []
    for kill in range(as_int(params, "kills")):
        child = _spawn(root, "worker-kill", {"prefix": f"k{kill}-"}, f"kill{kill}")
        _wait_ready([child])
        time.sleep(rng.uniform(low, high))
        child.process.send_signal(signal.SIGKILL)
        child.process.wait(timeout=CHILD_TIMEOUT_S)
        children.append(child)
    history = system.history(root)  # reopening is when a system may repair
    kept = {tag_of(text) for _cursor, text in history.read_after(0)}
    history.close()
    sessions = system.sessions(root)
    stored = {tag_of(text) for text in sessions.contents(SHARED_KEY)}
    sessions.close()
    acked_h = {tag for child in children for tag in _acks(child, "h")}
    acked_s = {tag for child in children for tag in _acks(child, "s")}
    return {
        "kills": len(children),
        "acked_entries": len(acked_h),
        "lost_acked_entries": len(acked_h - kept),
        "acked_messages": len(acked_s),
        "lost_acked_messages": len(acked_s - stored),
        **check_files(root),
    }


FAULT_WORKLOADS: dict[str, Workload] = {
    "concurrent-history": run_concurrent_history,
    "concurrent-session": run_concurrent_session,
    "kill": run_kill,
}
