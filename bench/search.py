"""Benchmark search: full index, incremental refresh and query times at 10k and 100k items.

Run: .venv/bin/python bench/search.py [SIZES...]   (prints one JSON object; default 10000 100000)
Items are half history entries, half session messages (over 50 sessions), with generated
text of about 25 words, one item in five in Chinese. Per size it reports: the time to index
everything into a new index, the time of a refresh that finds 100 new items (50 entries, 50
messages: first spread over all 50 sessions, then all in one session), the time of a refresh
that finds nothing, and median ``search()`` times (which include that no-op refresh) for
several kinds of query. A refresh reads each changed session whole (``SessionStore.load``),
so spreading new messages over many long sessions is its worst case. Figures depend on the
machine.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from reverie import Message
from reverie.core.messages import Role
from reverie.storage.folder.index import SearchIndex
from reverie.storage.folder.workspace import Workspace

SESSIONS = 50
_VOCABULARY = (
    "user prefers coffee tea morning meeting project deadline budget review python rust "
    "deploy server database migration kyoto travel flight hotel dinner family birthday "
    "gift doctor appointment running marathon training knee injury garden tomatoes "
    "weather rain invoice client contract lawyer apartment rent landlord bicycle repair "
    "guitar lesson book novel chapter editor printer paper recipe pasta garlic oven "
    "schedule weekend "
)
WORDS = _VOCABULARY.split()
CHINESE = "用户喜欢喝咖啡每天早上开会项目截止日期预算旅行京都酒店晚餐家人生日礼物医生预约跑步训练"
QUERIES = {
    "one_common_word": "coffee",
    "two_words": "marathon training",
    "rare_word": "zanzibar",
    "chinese_word": "咖啡",
    "phrase": '"knee injury"',
}


def _text(rng: random.Random, number: int) -> str:
    if rng.random() < 0.2:
        return "".join(rng.choice(CHINESE) for _ in range(40)) + f" {number}"
    words = [rng.choice(WORDS) for _ in range(25)]
    if number % 5000 == 0:
        words.append("zanzibar")
    return " ".join(words).capitalize() + f" (item {number})."


def _fill(
    workspace: Workspace, count: int, rng: random.Random, start: int = 0, sessions: int = SESSIONS
) -> None:
    half = count // 2
    for number in range(start, start + half):
        workspace.history.append(_text(rng, number), session_key=f"cli:s{number % sessions}")
    per_session: dict[str, list[Message]] = {}
    for number in range(start + half, start + count):
        role: Role = "user" if number % 2 else "assistant"
        message = Message(role=role, content=_text(rng, number))
        per_session.setdefault(f"cli:s{number % sessions}", []).append(message)
    for key, messages in per_session.items():
        for chunk in range(0, len(messages), 500):
            workspace.sessions.append_many(key, messages[chunk : chunk + 500])


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)


def _queries(index: SearchIndex, repeats: int = 30) -> dict[str, float]:
    medians = {}
    for name, query in QUERIES.items():
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            index.search(query, limit=10)
            samples.append((time.perf_counter() - start) * 1000)
        medians[name] = round(statistics.median(samples), 3)
    return medians


def _measure(size: int) -> dict[str, object]:
    rng = random.Random(size)
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Workspace.open(Path(tmp) / "ws", create=True)
        _fill(workspace, size, rng)
        index = SearchIndex(workspace)
        start = time.perf_counter()
        built = index.refresh()
        full_ms = _ms(start)
        _fill(workspace, 100, rng, start=size)
        start = time.perf_counter()
        incremental = index.refresh()
        incremental_ms = _ms(start)
        _fill(workspace, 100, rng, start=size + 100, sessions=1)
        start = time.perf_counter()
        index.refresh()
        one_session_ms = _ms(start)
        start = time.perf_counter()
        index.refresh()
        noop_ms = _ms(start)
        queries = _queries(index)
        figures: dict[str, object] = {
            "items_indexed": built.history_added + built.messages_added,
            "full_index_ms": full_ms,
            "incremental_refresh_100_new_ms": incremental_ms,
            "incremental_items": incremental.history_added + incremental.messages_added,
            "incremental_refresh_100_new_one_session_ms": one_session_ms,
            "noop_refresh_ms": noop_ms,
            "search_ms_median": queries,
            "search_ms_median_overall": round(statistics.median(queries.values()), 3),
            "index_bytes": index.path.stat().st_size,
        }
        index.close()
        workspace.close()
    return figures


def main() -> None:
    sizes = [int(arg) for arg in sys.argv[1:]] or [10_000, 100_000]
    print(json.dumps({str(size): _measure(size) for size in sizes}, indent=2))


if __name__ == "__main__":
    main()
