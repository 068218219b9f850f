"""Turn the side-by-side runs into medians, reverie/nanobot ratios, a table and plots.

Owns: which figures the comparison reports (``rows``), the issue's targets, the Markdown table
and the PNG plots. Must not: run anything or invent a figure; every number here is a median
of measured repetitions. matplotlib is imported only to draw (the ``bench`` extra).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SYSTEMS = ("reverie", "nanobot")


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One reported figure: where it sits in a driver's JSON and what it should be."""

    label: str
    key: str
    unit: str
    max_ratio: float | None = None  # target: reverie/nanobot at most this
    max_value: float | None = None  # target: reverie's own figure at most this
    want_zero: bool = False  # target: reverie shows none


def flatten(value: object, prefix: str = "") -> dict[str, float]:
    """Flatten nested driver JSON to ``a.b.c`` keys, keeping numbers only."""
    if isinstance(value, bool):
        return {}
    if isinstance(value, int | float):
        return {prefix: float(value)}
    if isinstance(value, Mapping):
        flat: dict[str, float] = {}
        for name, inner in value.items():
            flat.update(flatten(inner, f"{prefix}.{name}" if prefix else str(name)))
        return flat
    return {}


Runs = Mapping[str, Mapping[str, Sequence[object]]]
Found = Mapping[str, Mapping[str, float]]


def _collect(runs: Runs) -> dict[str, dict[str, list[float]]]:
    out: dict[str, dict[str, list[float]]] = {system: {} for system in SYSTEMS}
    for workload, by_system in runs.items():
        for system, results in by_system.items():
            for result in results:
                for key, number in flatten(result).items():
                    out[system].setdefault(f"{workload}.{key}", []).append(number)
    return out


def medians(runs: Runs) -> dict[str, dict[str, float]]:
    """Per system, the median over repetitions of every numeric figure (``workload.key``)."""
    collected = _collect(runs)
    return {
        system: {key: statistics.median(numbers) for key, numbers in figures.items()}
        for system, figures in collected.items()
    }


def totals(runs: Runs) -> dict[str, dict[str, float]]:
    """Per system, the sum over repetitions of every numeric figure (for fault counts)."""
    collected = _collect(runs)
    return {
        system: {key: sum(numbers) for key, numbers in figures.items()}
        for system, figures in collected.items()
    }


def rows(sizes: Sequence[int], lengths: Sequence[int], procs: int, count: int) -> list[Row]:
    """The figures the table shows, for the sizes this run used."""
    top_size, top_length = max(sizes), max(lengths)
    table = [
        Row(label="append one entry", key="append.append_us.median", unit="µs", max_ratio=0.2),
        Row(
            label="raw O_APPEND write of the same line",
            key="append.raw_append_us.median",
            unit="µs",
        ),
        Row(
            label="append ÷ raw write (same process)",
            key="append.append_over_raw",
            unit="x",
            max_value=10,
        ),
    ]
    for size in sizes:
        table.append(
            Row(
                label=f"read 20 newest of {size:,}",
                key=f"scale.read_newest_20_us.{size}.median",
                unit="µs",
                max_ratio=0.01 if size == top_size else None,
            )
        )
    table.append(Row(label=f"trim {top_size:,} to 1,000", key="scale.trim_ms", unit="ms"))
    for length in lengths:
        table.append(
            Row(
                label=f"persist 1 message at {length:,}",
                key=f"persist.persist_one_us.{length}.median",
                unit="µs",
                max_ratio=0.01 if length == top_length else None,
            )
        )
    return table + _fault_rows(procs, count)


def _fault_rows(procs: int, count: int) -> list[Row]:
    """Fault counts; reverie's target is zero for each (issue 9, DESIGN invariants 1 and 3)."""
    names = [
        f"concurrent-history.{name}"
        for name in (
            "duplicate_cursors",
            "entries_sharing_a_cursor",
            "out_of_order",
            "missed_by_reader",
            "lost_lines",
        )
    ]
    names.append("concurrent-session.lost_messages")
    names += [
        f"kill.{name}"
        for name in (
            "lost_acked_entries",
            "lost_acked_messages",
            "unreadable_files",
            "bad_lines",
            "temp_files",
        )
    ]
    return [
        Row(label=_fault_label(key, procs, count), key=key, unit="", want_zero=True)
        for key in names
    ]


def _fault_label(key: str, procs: int, count: int) -> str:
    workload, name = key.split(".")
    words = name.replace("_", " ")
    if workload == "concurrent-history":
        return f"{procs}x{count} appends: {words}"
    if workload == "concurrent-session":
        return f"2 processes into one session: {words}"
    return "SIGKILL: leftover temp files" if name == "temp_files" else f"SIGKILL: {words}"


def verdict(row: Row, mine: float | None, theirs: float | None) -> str:
    """``met``, ``MISSED`` or empty when the row has no target (or a figure is absent)."""
    if row.max_value is not None:
        return "no figure" if mine is None else "met" if mine <= row.max_value else "MISSED"
    if mine is None or theirs is None:
        return "" if row.max_ratio is None and not row.want_zero else "no figure"
    if row.max_ratio is not None:
        return "met" if theirs > 0 and mine / theirs <= row.max_ratio else "MISSED"
    if row.want_zero:
        return "met" if mine == 0 else "MISSED"
    return ""


def ratio(mine: float | None, theirs: float | None) -> float | None:
    """reverie/nanobot, or None when undefined."""
    if mine is None or theirs is None or theirs == 0:
        return None
    return mine / theirs


def _number(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if not unit:
        return f"{value:g}"
    return f"{value:,.1f} {unit}" if value >= 10 else f"{value:.3g} {unit}"


def _target(row: Row) -> str:
    if row.max_ratio is not None:
        return f"≤ {row.max_ratio:g}"
    if row.max_value is not None:
        return f"≤ {row.max_value:g} {row.unit}"
    return "0" if row.want_zero else ""


def _cell(row: Row, found: Found, summed: Found, system: str) -> str:
    value = found[system].get(row.key)
    text = _number(value, row.unit)
    if row.unit or value is None:
        return text
    return f"{text} (Σ {summed[system].get(row.key, 0):g})"


def table(table_rows: Sequence[Row], found: Found, summed: Found) -> str:
    """The Markdown table of medians (counts also summed over repetitions), ratios, targets."""
    lines = [
        "| measure | reverie | nanobot | reverie/nanobot | target | |",
        "| --- | ---: | ---: | ---: | --- | --- |",
    ]
    for row in table_rows:
        mine, theirs = found["reverie"].get(row.key), found["nanobot"].get(row.key)
        share = ratio(mine, theirs)
        shown = "-" if share is None else (f"{share:.2g}" if share < 10 else f"{share:,.0f}")
        lines.append(
            f"| {row.label} | {_cell(row, found, summed, 'reverie')} | "
            f"{_cell(row, found, summed, 'nanobot')} | "
            f"{shown} | {_target(row)} | {verdict(row, mine, theirs)} |"
        )
    return "\n".join(lines)


def summary(table_rows: Sequence[Row], found: Found, summed: Found) -> list[dict[str, object]]:
    """The table as JSON: one object per row (``*_sum``: summed over repetitions)."""
    out: list[dict[str, object]] = []
    for row in table_rows:
        mine, theirs = found["reverie"].get(row.key), found["nanobot"].get(row.key)
        share = ratio(mine, theirs)
        item: dict[str, object] = {"measure": row.label, "key": row.key, "unit": row.unit}
        item |= {"reverie": mine, "nanobot": theirs}
        if not row.unit:
            item |= {f"{system}_sum": summed[system].get(row.key) for system in SYSTEMS}
        item |= {
            "ratio": None if share is None else round(share, 6),
            "target": _target(row) or None,
            "verdict": verdict(row, mine, theirs) or None,
        }
        out.append(item)
    return out
