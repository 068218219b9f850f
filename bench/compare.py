"""Side-by-side comparison of reverie and nanobot on the same machine, in the same run.

Run: ./dev bench-compare [--quick] [--reps N]   (or .venv/bin/python bench/compare.py ...)

It installs ``nanobot-ai`` from the package registry into its own virtual environment
(``.cache/bench/nanobot-venv``, never a dependency of reverie), then runs every workload on
both systems: each run is a fresh subprocess of that system's Python executing its driver
(``bench/sidebyside/*_driver.py``), which uses only the system's public classes and prints
JSON. Systems alternate (the first one swaps every repetition) and each workload is repeated;
the report is the median per figure. Prints the summary JSON, then a Markdown table with the
reverie/nanobot ratios and the targets of issue 9; writes the full runs to
``bench/out/compare.json`` and the plots to ``docs/img/`` (``bench/out/img/`` with --quick).

Must not: import nanobot into reverie's environment, or time anything itself (timing happens
inside the drivers, identically for both systems). Every figure it reports was measured in
this run; a driver that fails or returns a wrong answer stops the run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import compare_report

REPO = Path(__file__).resolve().parent.parent
DRIVERS = REPO / "bench" / "sidebyside"
NANOBOT_VENV = REPO / ".cache" / "bench" / "nanobot-venv"
NANOBOT_VERSION = "0.3.5"
DRIVER_TIMEOUT_S = 900

API = {
    "reverie": "Workspace.open; history.append / read_since / trim; dream_cursor.write; "
    "sessions.append (append_many to fill) / load",
    "nanobot": "MemoryStore.append_history / read_unprocessed_history / set_last_dream_cursor / "
    "compact_history (max_history_entries); SessionManager(workspace, sessions_root) "
    ".get_or_create + Session.add_message + SessionManager.save (fsync=False, as the agent "
    "loop); reload with a fresh SessionManager",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """What one run measures."""

    reps: int
    appends: int
    sizes: tuple[int, ...]
    lengths: tuple[int, ...]
    procs: int
    per_proc: int
    session_msgs: int
    kills: int
    budget_s: float

    def workloads(self, seed: int) -> list[tuple[str, dict[str, object]]]:
        """Each workload with the JSON parameters its driver takes."""
        return [
            ("append", {"count": self.appends}),
            ("scale", {"sizes": list(self.sizes), "keep": 1000, "budget_s": self.budget_s}),
            ("persist", {"lengths": list(self.lengths), "budget_s": self.budget_s}),
            ("concurrent-history", {"procs": self.procs, "count": self.per_proc, "batch": 20}),
            ("concurrent-session", {"procs": 2, "count": self.session_msgs, "pause_us": 1000}),
            ("kill", {"kills": self.kills, "seed": seed, "min_ms": 30, "max_ms": 400}),
        ]


FULL = Plan(
    reps=3,
    appends=2000,
    sizes=(1_000, 10_000, 50_000),
    lengths=(100, 1_000, 10_000),
    procs=4,
    per_proc=500,
    session_msgs=100,
    kills=10,
    budget_s=1.0,
)
QUICK = Plan(
    reps=1,
    appends=500,
    sizes=(1_000, 5_000),
    lengths=(100, 1_000),
    procs=4,
    per_proc=100,
    session_msgs=100,
    kills=3,
    budget_s=0.3,
)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def nanobot_python(version: str) -> Path:
    """Return the Python of a virtual environment holding ``nanobot-ai==version``."""
    python = NANOBOT_VENV / "bin" / "python"
    probe = "import importlib.metadata as m; print(m.version('nanobot-ai'))"
    if python.exists():
        found = subprocess.run(
            [str(python), "-c", probe], capture_output=True, text=True, check=False
        )
        if found.returncode == 0 and found.stdout.strip() == version:
            return python
    _say(f"installing nanobot-ai=={version} into {NANOBOT_VENV} ...")
    if not python.exists():
        base = str(getattr(sys, "_base_executable", sys.executable))
        subprocess.run([base, "-m", "venv", str(NANOBOT_VENV)], check=True)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, f"nanobot-ai=={version}"], check=True)
    return python


def machine(nanobot: Path) -> dict[str, object]:
    """What the figures ran on."""
    model = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    other = subprocess.run(
        [str(nanobot), "-c", "import platform; print(platform.python_version())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return {
        "nproc": os.cpu_count(),
        "cpu_model": model,
        "python_reverie_side": platform.python_version(),
        "python_nanobot_side": other.stdout.strip(),
        "platform": platform.platform(),
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
    }


def run_driver(
    python: Path, driver: str, workload: str, params: dict[str, object]
) -> dict[str, object]:
    """Run one workload in a fresh folder with one system's driver; return its JSON."""
    folder = Path(tempfile.mkdtemp(prefix=f"compare-{workload}-"))
    try:
        home = folder / "home"
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}
        command = [
            str(python),
            str(DRIVERS / driver),
            workload,
            str(folder / "run"),
            json.dumps(params),
        ]
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=DRIVER_TIMEOUT_S, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"{driver} {workload} failed:\n{done.stderr[-3000:]}")
        result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
        return result
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_all(
    plan: Plan, seed: int, pythons: dict[str, Path]
) -> dict[str, dict[str, list[dict[str, object]]]]:
    """Every workload, ``plan.reps`` times, the systems alternating who goes first."""
    runs: dict[str, dict[str, list[dict[str, object]]]] = {}
    for rep in range(plan.reps):
        order = ["reverie", "nanobot"] if rep % 2 == 0 else ["nanobot", "reverie"]
        for workload, params in plan.workloads(seed + rep):
            for system in order:
                started = time.perf_counter()
                result = run_driver(pythons[system], f"{system}_driver.py", workload, params)
                runs.setdefault(workload, {}).setdefault(system, []).append(result)
                took = time.perf_counter() - started
                _say(f"[rep {rep + 1}/{plan.reps}] {workload:<18} {system:<8} {took:6.1f} s")
    return runs


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, one repetition")
    parser.add_argument("--reps", type=int, help="repetitions (default 3, or 1 with --quick)")
    parser.add_argument("--seed", type=int, default=9, help="seed for the kill delays")
    parser.add_argument("--nanobot-version", default=NANOBOT_VERSION)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "compare.json")
    parser.add_argument("--plots", type=Path, help="folder for the PNGs (default docs/img)")
    parser.add_argument("--no-plots", action="store_true", help="do not draw (no matplotlib)")
    return parser.parse_args()


def main() -> None:
    args = _arguments()
    plan = QUICK if args.quick else FULL
    if args.reps:
        plan = replace(plan, reps=args.reps)
    _require_reverie()
    pythons = {"reverie": Path(sys.executable), "nanobot": nanobot_python(args.nanobot_version)}
    started = time.perf_counter()
    runs = run_all(plan, args.seed, pythons)
    found, summed = compare_report.medians(runs), compare_report.totals(runs)
    rows = compare_report.rows(plan.sizes, plan.lengths, plan.procs, plan.per_proc)
    report = {
        "machine": machine(pythons["nanobot"]),
        "versions": {
            system: runs["append"][system][0]["version"] for system in compare_report.SYSTEMS
        },
        "api": API,
        "plan": {**asdict(plan), "seed": args.seed},
        "seconds": round(time.perf_counter() - started, 1),
        "figures": compare_report.summary(rows, found, summed),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    everything = {**report, "medians": found, "totals": summed, "runs": runs}
    args.out.write_text(json.dumps(everything, indent=1), encoding="utf-8")
    print(json.dumps(report, indent=1))
    print()
    print(compare_report.table(rows, found, summed))
    if not args.no_plots:
        _plot(found, summed, plan, args.plots or _default_plots(quick=args.quick))
    _say(f"full runs in {args.out}")


def _default_plots(*, quick: bool) -> Path:
    # A quick run's figures must not replace the ones docs/benchmarks.md shows.
    return REPO / "bench" / "out" / "img" if quick else REPO / "docs" / "img"


def _plot(
    found: compare_report.Found, summed: compare_report.Found, plan: Plan, folder: Path
) -> None:
    import compare_plots

    paths = compare_plots.draw(
        found, summed, sizes=plan.sizes, lengths=plan.lengths, reps=plan.reps, folder=folder
    )
    for path in paths:
        _say(f"wrote {path}")


def _require_reverie() -> None:
    probe = subprocess.run(
        [sys.executable, "-c", "import reverie"], capture_output=True, check=False
    )
    if probe.returncode != 0:
        raise SystemExit("run this with reverie's own Python: ./dev bench-compare")


if __name__ == "__main__":
    main()
