"""Draw the side-by-side medians as PNG files (per-operation cost against size, and faults).

Owns: the look of ``compare-*.png``. Must not: compute or alter a figure; it draws the
medians ``compare_report.medians`` produced. Needs matplotlib (the ``bench`` extra).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from matplotlib.figure import Figure

COLOURS = {"reverie": "#2a7ab0", "nanobot": "#d9822b"}
Found = Mapping[str, Mapping[str, float]]


def _scaling(
    found: Found, *, key: str, sizes: Sequence[int], title: str, xlabel: str, path: Path
) -> None:
    figure = Figure(figsize=(6.4, 4.0), dpi=100)
    axes = figure.subplots()
    for system, colour in COLOURS.items():
        points = [(n, found[system].get(key.format(n=n))) for n in sizes]
        xs = [n for n, value in points if value is not None]
        ys = [value for _n, value in points if value is not None]
        axes.plot(xs, ys, marker="o", color=colour, label=system)
        for x, y in zip(xs, ys, strict=True):
            axes.annotate(_short(y), (x, y), textcoords="offset points", xytext=(4, 6), fontsize=8)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel(xlabel)
    axes.set_ylabel("median time per operation (µs, log)")
    axes.set_title(title)
    axes.grid(visible=True, which="both", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, metadata={"Software": None})


def _short(microseconds: float) -> str:
    if microseconds >= 1000:
        return f"{microseconds / 1000:.3g} ms"
    return f"{microseconds:.3g} µs"


def _faults(found: Found, *, items: Sequence[tuple[str, str]], reps: int, path: Path) -> None:
    figure = Figure(figsize=(6.4, 0.9 + 0.55 * len(items)), dpi=100)
    axes = figure.subplots()
    positions = range(len(items))
    for offset, (system, colour) in zip((-0.2, 0.2), COLOURS.items(), strict=True):
        values = [found[system].get(key, 0.0) for _label, key in items]
        bars = axes.barh(
            [p + offset for p in positions], values, height=0.4, color=colour, label=system
        )
        axes.bar_label(bars, labels=[f"{v:g}" for v in values], fontsize=8, padding=2)
    axes.set_yticks(list(positions), [label for label, _key in items])
    axes.invert_yaxis()
    axes.set_xlabel(f"count, summed over {reps} repetitions")
    axes.set_title("Faults (fewer is better)")
    axes.margins(x=0.2)
    axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path, metadata={"Software": None})


def _append(found: Found, *, key: str, path: Path) -> None:
    figure = Figure(figsize=(4.8, 3.6), dpi=100)
    axes = figure.subplots()
    values = [found[system].get(key, 0.0) for system in COLOURS]
    bars = axes.bar(list(COLOURS), values, color=list(COLOURS.values()), width=0.5)
    axes.bar_label(bars, labels=[_short(v) for v in values], fontsize=9, padding=2)
    axes.set_ylabel("median time per append (µs)")
    axes.set_title("Append one history entry")
    axes.margins(y=0.15)
    figure.tight_layout()
    figure.savefig(path, metadata={"Software": None})


FAULTS = (
    ("duplicate cursors", "concurrent-history.duplicate_cursors"),
    ("missed by a cursor reader", "concurrent-history.missed_by_reader"),
    ("lost session messages", "concurrent-session.lost_messages"),
    ("SIGKILL: unreadable files", "kill.unreadable_files"),
    ("SIGKILL: leftover temp files", "kill.temp_files"),
    ("SIGKILL: lost acked entries", "kill.lost_acked_entries"),
    ("SIGKILL: lost acked messages", "kill.lost_acked_messages"),
)


def draw(
    found: Found,
    summed: Found,
    *,
    sizes: Sequence[int],
    lengths: Sequence[int],
    reps: int,
    folder: Path,
) -> list[Path]:
    """Write the four PNGs into ``folder`` (faults summed over ``reps``); return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"compare-{name}.png" for name in ("read", "persist", "append", "faults")]
    _scaling(
        found,
        key="scale.read_newest_20_us.{n}.median",
        sizes=sizes,
        title="Read the 20 newest history entries",
        xlabel="entries in history.jsonl (log)",
        path=paths[0],
    )
    _scaling(
        found,
        key="persist.persist_one_us.{n}.median",
        sizes=lengths,
        title="Persist one new session message",
        xlabel="messages already in the session (log)",
        path=paths[1],
    )
    _append(found, key="append.append_us.median", path=paths[2])
    _faults(summed, items=FAULTS, reps=reps, path=paths[3])
    return paths
