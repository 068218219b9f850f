"""Start-up time of the command line against a bare Python start.

Run: ``.venv/bin/python bench/startup.py [--runs N]``. Prints one JSON object: the median and
best wall time (ms) of ``python -c pass``, ``reverie --help`` and ``reverie status`` on a fresh
workspace (each a real subprocess, as a person runs it), and each command's ratio to the bare
start. Targets (issue #19): ``--help`` within 10x and ``status`` within 15x the bare start.

On a shared, loaded machine wall time mostly measures waiting for a core; the median CPU time
(user + system of the child) and its ratio (``cpu_ratio_to_bare``) are steadier there.

Bytecode: an installed reverie starts from compiled ``.pyc`` files (pip compiles them at
install; an editable checkout writes them on first run). Where ``PYTHONDONTWRITEBYTECODE`` is
set (these shared machines set it), every start would compile ~300 modules from source, about
half a second of CPU that no installed copy pays: the children run without it, so the warm-up
run writes the cache, unless ``--no-bytecode-cache`` asks to measure the compiling start.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], runs: int, env: dict[str, str]) -> dict[str, float]:
    """Median and best wall time, median CPU time of ``command`` in ms (one warm-up run first)."""
    subprocess.run(command, check=False, capture_output=True, env=env)
    samples, cpu = [], []
    for _ in range(runs):
        start, cpu_start = time.perf_counter(), _cpu_seconds()
        subprocess.run(command, check=False, capture_output=True, env=env)
        samples.append((time.perf_counter() - start) * 1000)
        cpu.append((_cpu_seconds() - cpu_start) * 1000)
    return {
        "median_ms": round(statistics.median(samples), 1),
        "best_ms": round(min(samples), 1),
        "cpu_median_ms": round(statistics.median(cpu), 1),
    }


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--no-bytecode-cache", action="store_true", help="compile from source at every start"
    )
    args = parser.parse_args()
    runs = args.runs
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if args.no_bytecode_cache:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        workspace = str(Path(tmp) / "ws")
        subprocess.run(
            [str(BIN / "reverie"), "init", workspace], check=True, capture_output=True, env=env
        )
        figures = {
            "python -c pass": timed([sys.executable, "-c", "pass"], runs, env),
            "reverie --help": timed([str(BIN / "reverie"), "--help"], runs, env),
            "reverie status": timed([str(BIN / "reverie"), "-w", workspace, "status"], runs, env),
        }
    cache = "none (compiled at every start)" if args.no_bytecode_cache else "cached .pyc"
    report = {"runs": runs, "bytecode": cache, "figures": figures}
    for key, figure in (("ratio_to_bare", "median_ms"), ("cpu_ratio_to_bare", "cpu_median_ms")):
        bare = figures["python -c pass"][figure]
        report[key] = {
            name: round(value[figure] / bare, 1)
            for name, value in figures.items()
            if name != "python -c pass"
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
