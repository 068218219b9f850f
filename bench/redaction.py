"""Benchmark redaction: recall over generated secrets, false positives over ordinary text, cost.

Run: PYTHONPATH=. .venv/bin/python bench/redaction.py [examples]   (prints one JSON object)
The corpus is tests/redaction_corpus.py (kind x template x separator x language x context).
Figures: phrasings, secrets tried and missed (by kind and language), ordinary messages tried
and changed (the false-positive rate), and the median cost of ``redact`` on a message with no
secret-shaped token and on one holding a secret.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections import Counter

from hypothesis import HealthCheck, given, settings
from tests.redaction_corpus import PHRASINGS, SecretMessage, ordinary_messages, secret_messages

from reverie.core.redact import redact

PLAIN = "The user prefers short answers and is planning a trip to Kyoto in April. " * 4


def _cost(texts: list[str]) -> float:
    samples = []
    for text in texts:
        start = time.perf_counter_ns()
        redact(text)
        samples.append((time.perf_counter_ns() - start) / 1000)
    return round(statistics.median(samples), 2)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    missed: Counter[str] = Counter()
    tried: Counter[str] = Counter()
    changed: list[str] = []
    examples: list[str] = []
    ordinary = 0

    @settings(
        max_examples=count, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(secret_messages())
    def secrets(message: SecretMessage) -> None:
        tried[f"{message.kind}/{message.lang}"] += 1
        if any(piece in redact(message.text) for piece in message.pieces()):
            missed[f"{message.kind}/{message.lang}"] += 1
            examples.append(message.text)

    @settings(
        max_examples=count // 2,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(ordinary_messages())
    def plain(text: str) -> None:
        nonlocal ordinary
        ordinary += 1
        if redact(text) != text:
            changed.append(text)

    secrets()
    plain()
    print(json.dumps({
        "phrasings": len(PHRASINGS),
        "secrets_tried": sum(tried.values()),
        "secrets_missed": sum(missed.values()),
        "missed_by_kind_language": dict(missed),
        "missed_examples": examples[:10],
        "ordinary_tried": ordinary,
        "ordinary_changed": len(changed),
        "false_positive_rate": round(len(changed) / max(ordinary, 1), 4),
        "false_positive_examples": sorted(set(changed))[:10],
        "redact_us_median_plain": _cost([f"{i} {PLAIN}" for i in range(3000)]),
        "redact_us_median_secret": _cost([f"{i} my password is Tr0ub4dor{i}" for i in range(3000)]),
    }, indent=2, ensure_ascii=False))  # fmt: skip


if __name__ == "__main__":
    main()
