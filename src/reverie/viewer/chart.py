"""A small inline SVG bar chart of memory-job tokens per day, drawn on the server.

No script and no library: one ``<svg>`` with a bar per day (input plus output tokens of every
memory job that day, from the ledger), the newest ``days`` days that have any record, each bar
titled with its day and figures so a hover shows them.
"""

from __future__ import annotations

from collections.abc import Mapping

from reverie.core.ledger import JobTotals
from reverie.viewer.markup import Html, tag

WIDTH = 420
HEIGHT = 120
_BASELINE = HEIGHT - 18


def tokens_by_day(by_day: Mapping[tuple[str, str], JobTotals]) -> dict[str, tuple[int, int]]:
    """Sum (tokens, calls) per day over every job, days in order."""
    days: dict[str, tuple[int, int]] = {}
    for (day, _job), totals in sorted(by_day.items()):
        tokens, calls = days.get(day, (0, 0))
        days[day] = (tokens + totals.tokens_in + totals.tokens_out, calls + totals.calls)
    return days


def day_chart(by_day: Mapping[tuple[str, str], JobTotals], *, days: int = 30) -> Html:
    """The chart, or a line saying there is nothing to draw yet."""
    figures = list(tokens_by_day(by_day).items())[-days:]
    if not figures:
        return tag("p", "no memory job has run yet", class_="muted")
    peak = max(tokens for _day, (tokens, _calls) in figures) or 1
    slot = WIDTH / len(figures)
    bars = []
    for index, (day, (tokens, calls)) in enumerate(figures):
        height = max(1.0, (_BASELINE - 12) * tokens / peak)
        bars.append(
            tag(
                "rect",
                tag("title", f"{day}: {tokens:,} tokens in {calls} calls"),
                x=f"{index * slot + 1:.1f}",
                y=f"{_BASELINE - height:.1f}",
                width=f"{max(1.0, slot - 2):.1f}",
                height=f"{height:.1f}",
            )
        )
    labels = [
        tag("text", figures[0][0], x="0", y=str(HEIGHT - 4)),
        tag("text", figures[-1][0], x=str(WIDTH), y=str(HEIGHT - 4), text_anchor="end"),
        tag("text", f"peak {peak:,} tokens/day", x="0", y="10"),
    ]
    return tag(
        "svg",
        *bars,
        *labels,
        class_="chart",
        viewBox=f"0 0 {WIDTH} {HEIGHT}",
        width=str(WIDTH),
        height=str(HEIGHT),
        role="img",
        aria_label="memory-job tokens per day",
    )
