"""A kill schedule driven by the workers' progress, not by the wall clock (``--quick``).

Timed kills make a short soak depend on the machine's load: on a busy machine a worker can be
killed before it finished importing, and a run may then do no action at all. Here each worker
does a fixed number of actions per generation (``--max-actions``; its wall deadline is only a
safety net), and the supervisor kills each worker's first generation right after it has
acknowledged a seeded number of actions (so it dies in the middle of the next one), then lets
the second generation run to completion. Every run therefore kills and restarts every worker,
and acknowledges the same actions (the workers' RNGs are seeded by worker and generation),
however slowly the machine runs; only the interleaving between workers varies.
"""

from __future__ import annotations

import random
import time

from soaklib.fleet import Fleet

POLL_SECONDS = 0.01


def acted(fleet: Fleet, worker: int) -> int:
    """Actions the current generation of ``worker`` has acknowledged so far."""
    path = fleet.options.acks / f"w{worker}-g{fleet.generation(worker)}.jsonl"
    try:
        lines = path.read_bytes().split(b"\n")
    except FileNotFoundError:
        return 0
    # The start line is not an action; a last line without its newline is still being written.
    return max(0, len([line for line in lines[:-1] if line.strip()]) - 1)


def drive_by_progress(fleet: Fleet, seed: int, actions: int, safety_seconds: float) -> None:
    """Kill each worker once, after a seeded number of its actions, then let all finish.

    Args:
        fleet: the started workers.
        seed: seeds the kill points.
        actions: actions per generation (each kill point is in ``1..actions-1``).
        safety_seconds: give up waiting after this long (the checks then report what ran).
    """
    rng = random.Random(f"kills-{seed}")
    kill_after = {worker: rng.randint(1, max(1, actions - 1)) for worker in range(fleet.size)}
    end = time.monotonic() + safety_seconds
    while kill_after and time.monotonic() < end:
        for worker, after in list(kill_after.items()):
            if acted(fleet, worker) >= after:
                fleet.kill_and_restart(worker)
                del kill_after[worker]
        fleet.reap()
        time.sleep(POLL_SECONDS)
    while not fleet.all_finished() and time.monotonic() < end:
        fleet.reap()
        time.sleep(POLL_SECONDS * 10)
