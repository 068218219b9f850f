"""Draw ``bench/scale.py``'s figures: each operation's cost, and the engine's memory, against size.

Run: .venv/bin/python bench/scale_plots.py REPORT.json [REPORT.json ...] [--out DIR]

Reads the JSON that ``bench/scale.py --out`` wrote (one per backend, or one holding both) and
writes ``scale-cost.png`` (p50 CPU and wall milliseconds of prompt, record, recall, search and
model-free dream, one panel per backend; with a ``--dense`` report also the prompt with dense
recall on, dashed) and ``scale-memory.png`` (resident memory of the engine, and of the engine
with dense recall's vectors loaded when the report has them) into ``--out`` (default
``bench/out/img``, which is gitignored; the figures docs/benchmarks.md shows are drawn with
``--out docs/img``). Must not compute or alter a figure: it draws what the reports hold.
Needs matplotlib (the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure

OPERATIONS = ("prompt_ms", "record_ms", "recall_ms", "search_ms", "dream_ms")
COLOURS = ("#2a7ab0", "#d9822b", "#3a9a5b", "#b03a2e", "#7d5ba6")
DENSE_COLOUR = "#1b1b1b"
BACKENDS = ("folder", "postgres")
Rows = Sequence[Mapping[str, object]]


def _number(row: Mapping[str, object], name: str, part: str) -> float:
    value = row[name]
    assert isinstance(value, Mapping), name
    number = value[part]
    assert isinstance(number, int | float), name
    return float(number)


def _dense(rows: Rows) -> list[Mapping[str, object]] | None:
    """Each row's ``dense`` figures (``bench/scale.py --dense``), or None if a row has none."""
    found = [row.get("dense") for row in rows]
    if not found or not all(isinstance(dense, Mapping) for dense in found):
        return None
    return [dense for dense in found if isinstance(dense, Mapping)]


def _dense_prompt(axes: Axes, sizes: list[int], rows: Rows) -> bool:
    """The prompt with dense recall on, if the rows have it; whether they had."""
    dense = _dense(rows)
    if dense is None:
        return False
    cpu = [_number(row, "prompt_ms", "cpu_p50") for row in dense]
    wall = [_number(row, "prompt_ms", "p50") for row in dense]
    label = "prompt, dense (CPU)"
    axes.plot(sizes, cpu, marker="s", color=DENSE_COLOUR, linestyle="--", label=label)
    axes.plot(sizes, wall, marker=".", color=DENSE_COLOUR, linestyle=":", alpha=0.7)
    return True


def cost(found: Mapping[str, Rows], path: Path) -> None:
    """One panel per backend: p50 CPU (solid) and wall (dotted) ms of each operation."""
    figure = Figure(figsize=(6.4 * len(found), 4.2), dpi=100)
    panels = figure.subplots(1, len(found), squeeze=False)[0]
    for axes, (backend, rows) in zip(panels, found.items(), strict=True):
        sizes = [int(str(row["items"])) for row in rows]
        for name, colour in zip(OPERATIONS, COLOURS, strict=True):
            label = name.removesuffix("_ms")
            cpu = [_number(row, name, "cpu_p50") for row in rows]
            wall = [_number(row, name, "p50") for row in rows]
            axes.plot(sizes, cpu, marker="o", color=colour, label=f"{label} (CPU)")
            axes.plot(sizes, wall, marker=".", color=colour, linestyle=":", alpha=0.7)
        dense = _dense_prompt(axes, sizes, rows)
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.set_xlabel("items in the workspace (log)")
        axes.set_ylabel("p50 ms per call (log); dotted: wall clock")
        what = "lexical; dense: synthetic stored vectors" if dense else "lexical"
        axes.set_title(f"Cost against size, {backend} ({what})")
        axes.grid(visible=True, which="both", alpha=0.3)
        axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, metadata={"Software": None})


def memory(found: Mapping[str, Rows], path: Path) -> None:
    """Resident memory of the probe process (and the engine's share) against size."""
    figure = Figure(figsize=(6.4, 4.0), dpi=100)
    axes = figure.subplots()
    top = 1100.0
    for (backend, rows), colour in zip(found.items(), COLOURS, strict=False):
        sizes = [int(str(row["items"])) for row in rows]
        rss = [float(str(row["rss_mb"])) for row in rows]
        axes.plot(sizes, rss, marker="o", color=colour, label=f"{backend}: process VmRSS")
        for x, y in zip(sizes, rss, strict=True):
            axes.annotate(f"{y:.0f} MB", (x, y), textcoords="offset points", xytext=(4, 6))
        dense = _dense(rows)
        if dense is not None:
            loaded = [float(str(row["rss_mb"])) for row in dense]
            label = f"{backend}: VmRSS, dense vectors loaded"
            axes.plot(sizes, loaded, marker="s", color=colour, linestyle="--", label=label)
            for x, y in zip(sizes, loaded, strict=True):
                axes.annotate(f"{y:.0f} MB", (x, y), textcoords="offset points", xytext=(4, -12))
            top = max(top, 1.1 * max(loaded))
    axes.axhline(1024, color="#888888", linestyle="--", label="target: 1 GB")
    axes.set_xscale("log")
    axes.set_xlabel("items in the workspace (log)")
    axes.set_ylabel("MiB")
    axes.set_ylim(0, top)
    axes.set_title("Resident memory of an engine that answered prompts")
    axes.grid(visible=True, alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, metadata={"Software": None})


def main() -> None:
    """Read the reports, draw both figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=Path("bench/out/img"))
    options = parser.parse_args()
    found: dict[str, Rows] = {}
    for report in options.reports:
        data = json.loads(report.read_text(encoding="utf-8"))
        found |= {backend: data[backend] for backend in BACKENDS if backend in data}
    options.out.mkdir(parents=True, exist_ok=True)
    for name, draw in (("scale-cost.png", cost), ("scale-memory.png", memory)):
        draw(found, options.out / name)
        print(f"wrote {options.out / name}")


if __name__ == "__main__":
    main()
