"""Token counting: the offline estimator's error against exact o200k counts, and both speeds.

Run: ``.venv/bin/python bench/tokens.py``. Prints one JSON object: per corpus sample the exact
count, the estimate and the error in percent; then counting speed for the estimator and the
exact counter (microseconds per 1,000 characters and tokens per second). Exact figures need the
``tokens`` extra; without it only the estimator's speed is printed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from reverie.core.token_estimate import estimate_tokens
from reverie.llm.tokens import ExactCounter

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "llm" / "corpus"
REPEATS = 200


def speed(count: Callable[[str], int], texts: list[str]) -> dict[str, float]:
    """Counting speed on texts never seen before (counters remember texts they have counted)."""
    chars = sum(len(text) for text in texts)
    tokens = sum(count(text) for text in texts)  # also lazy loads
    best = float("inf")
    for round_no in range(5):
        batch = [
            [f"{round_no}.{repeat} {text}" for text in texts] for repeat in range(REPEATS // 5)
        ]
        start = time.perf_counter()
        for fresh in batch:
            for text in fresh:
                count(text)
        best = min(best, (time.perf_counter() - start) / (REPEATS // 5))
    return {
        "us_per_1k_chars": round(best / chars * 1e9, 1),
        "tokens_per_second": round(tokens / best),
    }


def main() -> None:
    samples = {path.name: path.read_text(encoding="utf-8") for path in sorted(CORPUS.iterdir())}
    exact = ExactCounter.load()
    report: dict[str, object] = {"encoding": "o200k_base", "exact_available": exact is not None}
    if exact is not None:
        rows = {}
        for name, text in samples.items():
            truth, guess = exact.text(text), estimate_tokens(text)
            rows[name] = {
                "chars": len(text),
                "exact": truth,
                "estimate": guess,
                "error_pct": round(100 * (guess - truth) / truth, 1),
            }
        report["samples"] = rows
        report["worst_abs_error_pct"] = max(abs(row["error_pct"]) for row in rows.values())
    texts = list(samples.values())
    report["speed"] = {"estimator": speed(estimate_tokens, texts)}
    if exact is not None:
        report["speed"]["exact"] = speed(exact.text, texts)  # type: ignore[index]
        start = time.perf_counter()
        for text in texts:
            exact.text(text)  # counted above: answered from memory, as prompts re-count turns
        repeat = time.perf_counter() - start
        report["speed"]["exact_repeat_us_per_1k_chars"] = round(  # type: ignore[index]
            repeat / sum(len(t) for t in texts) * 1e9, 2
        )
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
