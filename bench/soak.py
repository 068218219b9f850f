"""Soak: several processes drive record, turn and dream on one workspace under injected faults.

Run: .venv/bin/python bench/soak.py [--minutes 3] [--workers 4] [--seed 1] [--quick]
     (prints one JSON object; exit status 1 when any invariant was violated)

A supervisor (this process) starts a fault-injecting chat-completions server on 127.0.0.1
(``soaklib.server``: timeouts, 429/500/503, garbage bodies, truncated and empty replies,
malformed and hostile tool calls, a model that loops one edit), lays out a workspace with
canary files inside and beside it, and starts ``--workers`` worker processes (this script in
``--worker`` mode, ``soaklib.worker``) that loop over ``record``, ``turn`` and ``dream`` and
acknowledge every call that returned. At random intervals it SIGKILLs a random worker and
starts it again; sometimes it watches for a dream publish journal instead and, when one
appears, kills every worker at once, so an interrupted publish must be recovered. The run is
bounded in time (``--minutes``) and in count (``--max-actions``
per worker process). Then it stops the workers, turns faults off, runs one final dream (which
must finish any interrupted publish) and checks the invariants of DESIGN.md that apply
(``soaklib.checks``, ``soaklib.ledger_check``, ``soaklib.tree``). ``--quick`` is a ~20 s run
for the test suite, scheduled by progress rather than by time (``soaklib.schedule``): every
worker does a fixed number of actions and is killed once, after a seeded number of them, so the
run does the same work and the same kills however loaded the machine is. The workspace is
deleted afterwards unless ``--keep`` is given or a violation was found (then its path is
printed in the JSON).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from reverie.storage.folder.dream_journal import DEFAULT_JOURNAL as JOURNAL
from reverie.storage.folder.workspace import Workspace
from reverie.testing.folders import workspace_of
from soaklib.acks import read_acks
from soaklib.checks import (
    Report,
    check_cursors,
    check_doctor,
    check_dream,
    check_entries,
    check_messages,
    check_quarantine,
)
from soaklib.fleet import Fleet, FleetOptions
from soaklib.ledger_check import check_ledger
from soaklib.schedule import drive_by_progress
from soaklib.server import SoakModel
from soaklib.settings import CONTEXT_WINDOW, DREAM, MAX_OUTPUT_TOKENS, open_engine
from soaklib.tree import compare, fingerprint
from soaklib.worker import WorkerOptions, run_worker

CANARY = "canary: not for dream to touch\n"
QUICK_ACTIONS = 40
"""Actions per worker generation in ``--quick`` (the minutes are then only a safety net)."""
HOME_TARGETS = (Path("~/x").expanduser(),)
"""Where the hostile path ``~/x`` would land if it were expanded: guarded like the canaries."""


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-actions", type=int, default=5_000)
    parser.add_argument("--fault-rate", type=float, default=0.3)
    parser.add_argument("--timeout", type=float, default=0.5)
    parser.add_argument("--kill-every", type=float, nargs=2, default=(0.5, 3.0))
    parser.add_argument(
        "--quick", action="store_true", help="a short run by progress (2 workers, 40 actions each)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the workspace")
    parser.add_argument("--dir", type=Path, help="where to put the soak root (default: temp)")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--generation", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--workspace", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    parser.add_argument("--acks", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--deadline", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.minutes, args.workers, args.max_actions = 2.0, 2, QUICK_ACTIONS
    return args


def lay_out(root: Path) -> tuple[Path, tuple[str, ...]]:
    """Create the workspace with its canaries; return it and the hostile paths to try."""
    workspace = root / "ws"
    Workspace.open(workspace, create=True).close()
    (workspace / "canary.txt").write_text(CANARY, encoding="utf-8")
    (root / "outside-canary.txt").write_text(CANARY, encoding="utf-8")
    (root / "outside").mkdir()
    (root / "outside" / "SKILL.md").write_text(CANARY, encoding="utf-8")
    (workspace / "skills").mkdir(exist_ok=True)
    (workspace / "skills" / "link").symlink_to(root / "outside", target_is_directory=True)
    hostile = (
        "../x",
        "../outside-canary.txt",
        str(root / "outside-canary.txt"),
        ".git/config",
        "canary.txt",
        "skills/../canary.txt",
        "USER.md/../canary.txt",
        "skills/link/SKILL.md",
        "memory/history.jsonl",
        "memory/.dream_cursor",
        "sessions/evil.journal",
        ".reverie/dream-publish.json",
        "./../x",
        "Skills/Evil/SKILL.md",
        "memory\\MEMORY.md",
        "~/x",
    )
    return workspace, hostile


def drive(fleet: Fleet, args: argparse.Namespace, end: float) -> int:
    """Kill and restart workers at random until ``end`` (monotonic).

    Every third pause or so is spent watching for a dream publish journal instead of
    sleeping; when one appears, every worker is killed at once (one of them is publishing),
    so recovery of an interrupted publish is exercised too. Returns how often that happened.
    """
    rng = random.Random(args.seed)
    low, high = args.kill_every
    journal = fleet.options.workspace / JOURNAL
    publish_kills = 0
    while (left := end - time.monotonic()) > 0:
        pause = min(left, rng.uniform(low, high))
        if rng.random() < 0.3 and _watch(journal, pause):
            publish_kills += 1
            for worker in range(fleet.size):
                fleet.kill_and_restart(worker)
            continue
        time.sleep(pause)
        fleet.reap()
        if time.monotonic() < end:
            fleet.kill_and_restart(rng.randrange(fleet.size))
    return publish_kills


def _watch(path: Path, seconds: float) -> bool:
    """Poll for ``path`` for up to ``seconds``; True as soon as it exists."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if path.exists():
            return True
        time.sleep(0.002)
    return False


def final_checks(
    workspace: Path, url: str, args: argparse.Namespace, fleet: Fleet, report: Report
) -> None:
    """Recover with one fault-free dream, then run every check."""
    log = read_acks(fleet.options.acks)
    pending = (workspace / JOURNAL).exists()
    report.figures["publish_pending_at_stop"] = pending
    with open_engine(workspace, url, args.timeout) as engine:
        final = engine.dream(trigger="soak final")
        report.figures["final_dream"] = {"outcome": final.outcome, "recovered": final.recovered}
        if final.outcome not in ("completed", "no_pending"):
            report.fail([f"the fault-free final dream ended {final.outcome}: {final.reason}"])
        if pending and not final.recovered:
            report.fail(["a pending publish was not recovered by the final dream"])
        entries = list(engine.history())
        check_messages(engine, log.acks, report)
        check_entries(engine, log.acks, entries, report)
        check_cursors(engine, entries, report)
        check_quarantine(engine, report)
        check_dream(engine, log.acks, report)
        check_doctor(engine, report, Path(engine.location) / "skills" / "link")
        ledger, problems = check_ledger(
            workspace_of(engine).ledger,
            dream=DREAM,
            context_window=CONTEXT_WINDOW,
            max_output_tokens=MAX_OUTPUT_TOKENS,
            kill_times=fleet.kill_times,
        )
    report.figures["ledger"] = dataclasses.asdict(ledger)
    report.fail(problems)
    report.figures["actions"] = dict(Counter(ack["kind"] for ack in log.acks))
    report.figures["torn_ack_lines"] = log.torn
    report.fail([f"worker: {ack['what']}" for ack in log.acks if ack["kind"] == "violation"])
    report.fail(
        [
            f"worker {ack['action']} raised {ack['error']}: {ack['message']}"
            for ack in log.acks
            if ack["kind"] == "error"
        ]
    )


def run_fleet(args: argparse.Namespace, workspace: Path, acks: Path, model: SoakModel) -> Fleet:
    """Start the workers, kill and restart them at random, then stop them all."""
    seconds = args.minutes * 60
    options = FleetOptions(
        script=Path(__file__).resolve(),
        workspace=workspace,
        base_url=model.base_url,
        acks=acks,
        seed=args.seed,
        deadline=time.time() + seconds,
        max_actions=args.max_actions,
        timeout=args.timeout,
    )
    fleet = Fleet(options=options, size=args.workers)
    fleet.start_all()
    if args.quick:
        drive_by_progress(fleet, args.seed, args.max_actions, safety_seconds=seconds)
    else:
        fleet.publish_kills = drive(fleet, args, time.monotonic() + seconds)
    fleet.stop(grace=30.0)
    return fleet


def soak(args: argparse.Namespace, root: Path) -> Report:
    """The whole run in ``root``; returns the report."""
    report = Report()
    workspace, hostile = lay_out(root)
    acks = root / "acks"
    acks.mkdir()
    before = fingerprint(root, workspace, acks, HOME_TARGETS)
    started = time.monotonic()
    with SoakModel(
        seed=args.seed,
        fault_rate=args.fault_rate,
        timeout_delay=args.timeout + 0.5,
        hostile_paths=hostile,
    ) as model:
        fleet = run_fleet(args, workspace, acks, model)
        model.set_faults(enabled=False)
        final_checks(workspace, model.base_url, args, fleet, report)
        report.figures["requests_by_job"] = dict(model.requests)
        report.figures["faults_injected"] = dict(model.faults)
    report.fail(compare(before, fingerprint(root, workspace, acks, HOME_TARGETS)))
    report.fail([f"worker crashed: {crash}" for crash in fleet.crashes])
    report.figures.update(
        duration_s=round(time.monotonic() - started, 1),
        workers=args.workers,
        kills=fleet.kills,
        kills_during_publish=fleet.publish_kills,
        restarts=fleet.restarts,
        seed=args.seed,
    )
    return report


def main(argv: list[str]) -> int:
    args = parse(argv)
    if args.worker is not None:
        return run_worker(
            WorkerOptions(
                worker=args.worker,
                generation=args.generation,
                workspace=args.workspace,
                base_url=args.base_url,
                acks=args.acks,
                seed=args.seed,
                deadline=args.deadline,
                max_actions=args.max_actions,
                timeout=args.timeout,
            )
        )
    root = Path(tempfile.mkdtemp(prefix="reverie-soak-", dir=args.dir))
    report = soak(args, root)
    keep = args.keep or bool(report.violations)
    output = {**report.figures, "violations": report.violations}
    if keep:
        output["root"] = str(root)
    else:
        shutil.rmtree(root)
    print(json.dumps(output, indent=2, default=str))
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
