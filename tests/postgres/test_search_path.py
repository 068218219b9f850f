"""One search path: the folder index and PostgreSQL find the same items by the same rules.

Each test runs on a folder workspace and on a workspace of the test cluster: source
references through ``search()``, Chinese and Japanese through search, recall and the index's
candidates, the context weight of recall's candidates, and the ranking itself: BM25 as
FTS5 computes it (``core.bm25``), so a rare word outweighs a common one on both.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from reverie.core.hits import SNIPPET_CLOSE, SNIPPET_OPEN
from reverie.core.messages import Message
from reverie.engine.facade import MemoryEngine
from reverie.storage.folder.backend import FileBackend
from reverie.storage.ports import Backend
from reverie.storage.postgres.backend import PgBackend
from reverie.storage.postgres.tsearch import tsquery
from tests.postgres.conftest import new_workspace


@pytest.fixture(params=["folder", "postgres"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryEngine]:
    if request.param == "folder":
        opened = MemoryEngine.open(tmp_path / "ws", environ={}, dense="off")
    else:
        url = request.getfixturevalue("pg_url")
        opened = MemoryEngine.open(new_workspace(url, "path"), store=url, environ={}, dense="off")
    with opened:
        yield opened


@pytest.fixture(params=["folder", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    opened: Backend
    if request.param == "folder":
        opened = FileBackend.open(tmp_path / "ws", create=True)
    else:
        url = request.getfixturevalue("pg_url")
        opened = PgBackend.open(url, f"path-{secrets.token_hex(5)}", create=True)
    yield opened
    opened.close()


def _plain(snippet: str) -> str:
    return snippet.replace(SNIPPET_OPEN, "").replace(SNIPPET_CLOSE, "")


def _said(memory: MemoryEngine, key: str, user: str, reply: str) -> None:
    memory.record(key, [{"role": "user", "content": user}, {"role": "assistant", "content": reply}])


def test_a_source_reference_from_a_recalled_section_is_found_on_both_backends(
    memory: MemoryEngine,
) -> None:
    _said(memory, "tg:mira", "I moved to Utrecht last spring", "Noted, Utrecht.")
    _said(memory, "tg:mira", "My cat is called Pixel", "Pixel, nice name.")
    assert memory.compact("tg:mira").outcome == "summarised"
    [entry, *_] = memory.history()
    [hit] = memory.search(f"#h{entry.cursor}")
    assert (hit.kind, hit.cursor) == ("history", entry.cursor)
    [message] = memory.search("#m2@tg:mira")
    assert (message.kind, message.message_index) == ("message", 2)
    assert "Pixel" in message.snippet
    assert memory.search("#h999") == []


def test_chinese_and_japanese_are_found_inside_a_sentence_on_both_backends(
    memory: MemoryEngine,
) -> None:
    _said(memory, "tg:li", "我每天早上都喝咖啡", "好的，记住了。")
    _said(memory, "tg:li", "来週は東京タワーに行きます", "いいですね。")
    _said(memory, "tg:li", "I also like green tea", "Noted.")
    [coffee, *_] = memory.search("咖啡")
    assert "咖啡" in _plain(coffee.snippet)
    assert any("東京タワー" in _plain(hit.snippet) for hit in memory.search("東京タワー"))
    recalled = memory.recall("我喜欢喝什么咖啡？", session="tg:li")
    assert any("咖啡" in item.text for item in recalled.items)
    assert any("東京" in item.text for item in memory.recall("東京に行く?", session="tg:li").items)


def test_candidates_for_a_chinese_pair_and_a_phrase_agree_on_both_backends(
    backend: Backend,
) -> None:
    backend.history.append("用户每天喝咖啡", session_key="tg:li")
    backend.history.append("用户喜欢喝茶", session_key="tg:li")
    backend.sessions.append("tg:li", Message(role="user", content="東京タワーに行きました"))
    index = backend.open_index()
    try:
        index.refresh()
        assert [c.text for c in index.candidates(["咖啡"], limit=5)] == ["用户每天喝咖啡"]
        assert [c.text for c in index.candidates(["タワ"], limit=5)] == ["東京タワーに行きました"]
        assert {c.text for c in index.candidates(["喝"], limit=5)} == {
            "用户每天喝咖啡",
            "用户喜欢喝茶",
        }
        assert index.candidates(["啡咖"], limit=5) == []  # a pair is the two side by side
        [hit] = index.search("每天喝咖啡")
        assert "咖啡" in _plain(hit.snippet)
        assert "\x1f" not in hit.snippet
        assert "\u200b" not in hit.snippet
    finally:
        index.close()


def test_the_context_weight_brings_in_the_answer_to_a_question_on_both_backends(
    backend: Backend,
) -> None:
    """'last Saturday' is found by the question it answers, at a share of a direct match."""
    key = "tg:ana"
    backend.sessions.append(key, Message(role="user", content="when is the flea market open?"))
    backend.sessions.append(key, Message(role="assistant", content="last Saturday of the month"))
    backend.sessions.append(key, Message(role="user", content="the market sells old maps"))
    index = backend.open_index()
    try:
        index.refresh()
        plain = index.candidates(["market"], limit=5, context_weight=0.0)
        assert {c.message_index for c in plain} == {0, 2}
        weighted = index.candidates(["market"], limit=5, context_weight=0.5)
        assert {c.message_index for c in weighted} == {0, 1, 2}
        answer = next(c for c in weighted if c.message_index == 1)
        assert answer.score > 0
        assert answer.score < max(c.score for c in weighted if c.message_index != 1)
        assert index.candidates(["market"], limit=5, session_key="tg:bob", context_weight=0.5) == []
    finally:
        index.close()


GARDEN_AND_VIOLIN = (
    "violin in the garden",
    "my violin lesson moved to tuesday afternoon",
    "garden garden garden",
    "the garden garden gate",
    "weeding the garden",
    "notes on the garden today",
    "the garden hose leaks again today",
    "garden plans for spring planting beds soon",
)
"""Best first by BM25: "violin" (2 items of 8) outweighs "garden" (7 of 8, FTS5's floor)."""


def test_a_rare_and_a_common_word_rank_the_same_items_in_the_same_order_on_both_backends(
    backend: Backend,
) -> None:
    """ts_rank_cd ranked "garden garden garden" above the violin lesson: it has no idf."""
    for text in ("notes on the garden today", "garden plans for spring planting beds soon"):
        backend.history.append(text, session_key="tg:li")
    for text in ("the garden garden gate", "garden garden garden", "weeding the garden"):
        backend.history.append(text, session_key="tg:li")
    backend.history.append("violin in the garden", session_key="tg:li")
    said = ("my violin lesson moved to tuesday afternoon", "the garden hose leaks again today")
    for content in said:
        backend.sessions.append("tg:li", Message(role="user", content=content))
    index = backend.open_index()
    try:
        index.refresh()
        hits = index.search("violin garden", limit=10)
        assert tuple(_plain(hit.snippet) for hit in hits) == GARDEN_AND_VIOLIN
        found = index.candidates(["violin", "garden"], limit=10, context_weight=0.0)
        assert tuple(c.text for c in found) == GARDEN_AND_VIOLIN
        assert [c.score for c in found] == sorted((c.score for c in found), reverse=True)
    finally:
        index.close()


def test_a_query_never_reaches_tsquery_syntax() -> None:
    assert tsquery(["a & b", "c:*", "(d | !e)", "'f'"]) == (
        "('a' <-> 'b') | ('c') | ('d' <-> 'e') | ('f')"
    )
    assert tsquery(["咖啡", "green tea", "foo_bar"]) == (
        "('咖' <-> '啡') | ('green' <-> 'tea') | ('foo' <-> 'bar')"
    )
    assert tsquery(["!!", ""]) == ""


def test_rare_terms_are_counted_alike_on_both_backends(backend: Backend) -> None:
    """Recall links items through words few items hold; both backends count them the same."""
    for i in range(4):
        backend.history.append(f"note {i} about the garden", session_key="tg:li")
    backend.history.append("the violin lesson moved", session_key="tg:li")
    backend.sessions.append("tg:li", Message(role="user", content="violin again, 咖啡 too"))
    index = backend.open_index()
    try:
        index.refresh()
        assert index.rare_terms(["garden", "violin", "咖啡", "absent", "!!"], at_most=2) == [
            "violin",
            "咖啡",
            "absent",
        ]
    finally:
        index.close()
