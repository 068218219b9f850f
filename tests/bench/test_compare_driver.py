"""The reverie side of bench/compare.py, run for real on tiny workloads so it cannot rot.

No nanobot and no network: the nanobot driver needs its own virtual environment, which only
``./dev bench-compare`` builds. The concurrency and kill workloads run reverie's driver exactly
as the comparison does (a subprocess of this Python, one JSON object on stdout); the timed
workloads, which start no process of their own, run its ``main`` in this process with the
same arguments (the subprocess ones already prove the script starts). Each test checks the
shape of what the driver reports and the fault counts reverie promises to keep at zero. No
timing is asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.bench.conftest import BENCH

DRIVER = BENCH / "sidebyside" / "reverie_driver.py"


def _drive(tmp_path: Path, workload: str, params: Mapping[str, object]) -> dict[str, object]:
    env = {**os.environ, "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(DRIVER), workload, str(tmp_path / workload), json.dumps(params)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["system"] == "reverie"
    return result


def _object(value: object) -> dict[str, object]:
    assert isinstance(value, dict)
    return value


def _number(value: object) -> float:
    assert isinstance(value, int | float)
    return float(value)


def _drive_here(
    tmp_path: Path,
    workload: str,
    params: Mapping[str, object],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> dict[str, object]:
    """``_drive`` in this process: the driver's ``main`` with the same command line."""
    from faults import FAULT_WORKLOADS
    from harness import TIMED_WORKLOADS, main
    from reverie_driver import Reverie
    from workers import WORKERS

    argv = [str(DRIVER), workload, str(tmp_path / workload), json.dumps(params)]
    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.setenv("HOME", str(tmp_path))
    capsys.readouterr()
    main(Reverie(), {**TIMED_WORKLOADS, **FAULT_WORKLOADS}, WORKERS)
    result: dict[str, object] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["system"] == "reverie"
    return result


def test_append_reports_one_timing_sample_per_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    result = _drive_here(tmp_path, "append", {"count": 50}, monkeypatch, capsys)
    timing = _object(result["append_us"])
    assert timing["n"] == 50
    assert 0 < _number(timing["median"]) <= _number(timing["p90"])


def test_scale_reads_the_newest_twenty_at_each_size_then_trims(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    params = {"sizes": [30, 120], "keep": 25, "budget_s": 0.05}
    result = _drive_here(tmp_path, "scale", params, monkeypatch, capsys)
    reads = _object(result["read_newest_20_us"])
    assert sorted(reads) == ["120", "30"]
    assert all(_number(_object(figure)["n"]) >= 5 for figure in reads.values())
    assert result["trim_from"] == 120
    assert _number(result["trim_ms"]) > 0


def test_persist_times_one_message_at_each_session_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    params = {"lengths": [3, 40], "budget_s": 0.05}
    result = _drive_here(tmp_path, "persist", params, monkeypatch, capsys)
    persist = _object(result["persist_one_us"])
    assert sorted(persist) == ["3", "40"]
    assert all(_number(_object(figure)["n"]) >= 5 for figure in persist.values())


@pytest.mark.slow
def test_concurrent_writers_and_a_cursor_reader_see_no_fault(tmp_path: Path) -> None:
    result = _drive(tmp_path, "concurrent-history", {"procs": 3, "count": 40, "batch": 7})
    assert result["acked"] == result["lines"] == 120
    for fault in ("duplicate_cursors", "missed_by_reader", "lost_lines", "out_of_order"):
        assert result[fault] == 0, fault


@pytest.mark.slow
def test_two_processes_in_one_session_lose_no_message(tmp_path: Path) -> None:
    params = {"procs": 2, "count": 15, "pause_us": 200}
    result = _drive(tmp_path, "concurrent-session", params)
    assert result == {
        "system": "reverie",
        "version": result["version"],
        "acked": 30,
        "found": 30,
        "lost_messages": 0,
    }


@pytest.mark.slow
def test_sigkilled_writers_lose_nothing_acknowledged(tmp_path: Path) -> None:
    params = {"kills": 2, "seed": 1, "min_ms": 20, "max_ms": 80}
    result = _drive(tmp_path, "kill", params)
    assert result["kills"] == 2
    assert _number(result["acked_entries"]) > 0
    for fault in ("lost_acked_entries", "lost_acked_messages", "unreadable_files", "temp_files"):
        assert result[fault] == 0, fault


def test_an_unknown_workload_fails_with_the_known_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as failed:
        _drive_here(tmp_path, "nonsense", {}, monkeypatch, capsys)
    assert "unknown workload 'nonsense'" in str(failed.value.code)
    assert "concurrent-history" in str(failed.value.code)
