"""Benchmark growth: record, prompt, recall, search and dream cost, and memory, at 10k to 1M items.

Run: .venv/bin/python bench/scale.py [--sizes 10000,100000,1000000] [--backend folder|postgres|both]
     [--samples N] [--seed S] [--dense] [--out PATH]   (prints one JSON object; also to ``--out``)

Grows ONE workspace per backend (a temporary folder; a workspace of a throwaway PostgreSQL
cluster on loopback, ``reverie.testing.local_cluster``, fsync on) through each size in turn
with generated chat (``scalelib.chat``: user chatter, questions, pasted errors and commands,
assistant explanations and code, compaction-style history entries, one message in twelve in
Chinese, a Zipfian tail of made-up names; ``scalelib.fill`` says how the items are laid out).
At each size it reports:

- ``fill_s``: writing the new items (bulk paths) and ``index_s``: catching the search index up
  on them (``engine.index.refresh()``), with items per second;
- then, in a fresh process (``scalelib.probe``): ``prompt_ms`` and ``record_ms`` over
  ``--samples`` exchanges (default 200), ``recall_ms``, ``search_ms``, model-free
  ``dream_ms``, and the resident memory of the engine (``rss_mb``, ``engine_rss_mb``,
  ``peak_rss_mb``);
- ``disk_mb``: the size of the folder workspace (``du``).

The figures above are lexical: dense recall is off. With ``--dense`` (off by default), each
size then also gets, under ``dense`` (``scalelib.vectors``): a vector for every item through
the real store path (``vector_fill_s``), then in another fresh process the same calls with
dense recall on, the query's model pass alone, the vector store's ``nearest`` over one session
and over every session, and the engine's memory with the vectors loaded. The stored vectors
are **synthetic** (random unit vectors: encoding 1M items with the model would take hours
here); queries are encoded by the real model. The output says so (``dense_vectors``).
Figures are from whatever machine runs this; say its load beside them (``load_average``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scalelib.chat import ChatText
from scalelib.fill import Filler, open_backend
from scalelib.probe import open_engine, probe


def _disk_mb(kind: str, target: str) -> float | None:
    if kind != "folder":
        return None
    ran = subprocess.run(["du", "-sk", target], capture_output=True, text=True, check=True)
    return round(int(ran.stdout.split()[0]) / 1024, 1)


def _probe(
    kind: str, target: str, seed: int, samples: int, *, dense: bool = False
) -> dict[str, object]:
    which = "--probe-dense" if dense else "--probe"
    argv = [sys.executable, __file__, which, kind, target, str(seed), str(samples)]
    ran = subprocess.run(argv, capture_output=True, text=True, check=False)
    if ran.returncode != 0:
        raise SystemExit(f"the probe failed:\n{ran.stderr}")
    figures: dict[str, object] = json.loads(ran.stdout)
    return figures


def _dense(kind: str, target: str, seed: int, samples: int) -> dict[str, object]:
    """Vectors for every item, then the dense probe (``scalelib.vectors``)."""
    from scalelib.vectors import give_vectors  # numpy and the model's package: only with --dense

    figures = give_vectors(kind, target, seed)
    figures["load_average"] = round(os.getloadavg()[0], 2)
    probed = _probe(kind, target, seed, samples, dense=True)
    figures["vectors_probed"] = probed.pop("vectors")
    return figures | probed


def grow(
    kind: str, target: str, sizes: list[int], seed: int, samples: int, *, dense: bool = False
) -> list[dict[str, object]]:
    """Grow the workspace at ``target`` through ``sizes``, measuring at each."""
    rows: list[dict[str, object]] = []
    filler = Filler(open_backend(kind, target), ChatText(seed))
    try:
        for size in sizes:
            added = size - filler.items
            started = time.perf_counter()
            filler.grow(size)
            filled = time.perf_counter() - started
            engine = open_engine(kind, target)
            started = time.perf_counter()
            engine.index.refresh()
            indexed = time.perf_counter() - started
            engine.close()
            row: dict[str, object] = {
                "items": size,
                "sessions": filler.sessions,
                "fill_s": round(filled, 1),
                "fill_items_per_s": round(added / filled) if filled else None,
                "index_s": round(indexed, 1),
                "index_items_per_s": round(added / indexed) if indexed else None,
                "load_average": round(os.getloadavg()[0], 2),
            }
            row |= _probe(kind, target, seed + size, samples)
            if dense:
                row["dense"] = _dense(kind, target, seed + size, samples)
            row["disk_mb"] = _disk_mb(kind, target)
            print(json.dumps({kind: row}), file=sys.stderr, flush=True)
            rows.append(row)
    finally:
        filler.backend.close()
    return rows


@contextlib.contextmanager
def _target(kind: str) -> Iterator[str]:
    if kind == "folder":
        with tempfile.TemporaryDirectory(prefix="reverie-scale-") as folder:
            yield folder
        return
    from reverie.testing.local_cluster import LocalCluster

    with LocalCluster(durable=True) as cluster:
        yield cluster.info.url


def main() -> None:
    """Parse the options, grow each backend's workspace, print the figures."""
    if sys.argv[1:2] == ["--probe"]:
        kind, target, seed, samples = sys.argv[2:6]
        print(json.dumps(probe(kind, target, int(seed), int(samples))))
        return
    if sys.argv[1:2] == ["--probe-dense"]:
        from scalelib.vectors import probe_dense

        kind, target, seed, samples = sys.argv[2:6]
        print(json.dumps(probe_dense(kind, target, int(seed), int(samples))))
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated item counts")
    parser.add_argument("--backend", choices=("folder", "postgres", "both"), default="folder")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--samples", type=int, default=200, help="timed calls of each kind")
    parser.add_argument(
        "--dense", action="store_true", help="also measure dense recall (synthetic vectors)"
    )
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    options = parser.parse_args()
    sizes = sorted(int(size) for size in options.sizes.split(","))
    kinds = ("folder", "postgres") if options.backend == "both" else (options.backend,)
    report: dict[str, object] = {"sizes": sizes, "cpus": os.cpu_count(), "seed": options.seed}
    if options.dense:
        from scalelib.vectors import NOTE

        report["dense_vectors"] = NOTE
    for kind in kinds:
        started = time.perf_counter()
        with _target(kind) as target:
            report[kind] = grow(
                kind, target, sizes, options.seed, options.samples, dense=options.dense
            )
        report[f"{kind}_seconds"] = round(time.perf_counter() - started, 1)
    text = json.dumps(report, indent=2)
    if options.out is not None:
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
