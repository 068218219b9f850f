"""The shipped sample conversations import cleanly and curate into sensible durable files."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from reverie.core.durable import MemoryFileName
from reverie.core.entries import HistoryEntry
from reverie.memory.ingest.importers import load
from reverie.memory.modelfree import ModelFreeCurator, ModelFreeSummariser, render_facts

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def curated() -> dict[MemoryFileName, str]:
    summariser = ModelFreeSummariser()
    entries: list[HistoryEntry] = []
    for source in (EXAMPLES / "conversations.json", EXAMPLES / "chatgpt-export"):
        batch = load(source)
        assert batch.problems == ()
        for conversation in batch.conversations:
            assert conversation.started_at is not None
            text = render_facts(summariser.extract(conversation.messages))
            stamp = conversation.started_at.strftime("%Y-%m-%d %H:%M")
            entries.append(HistoryEntry(cursor=len(entries) + 1, timestamp=stamp, content=text))
    result = ModelFreeCurator().curate({}, entries, today=date(2026, 11, 1))
    return dict(result.new_texts)


def test_the_examples_import_in_time_order_with_tool_calls() -> None:
    batch = load(EXAMPLES / "conversations.json")
    assert batch.format == "openai-json"
    assert len(batch.conversations) == 5
    starts = [c.started_at for c in batch.conversations]
    assert starts == sorted(s for s in starts if s is not None)
    assert sum(1 for c in batch.conversations for m in c.messages if m.tool_calls) == 5
    export = load(EXAMPLES / "chatgpt-export")
    assert export.format == "chatgpt-export"
    assert "8 km" not in " ".join(m.text for m in export.conversations[0].messages)


def test_the_examples_curate_into_files_with_the_correction_applied() -> None:
    files = curated()
    assert "Utrecht" in files["USER"]
    assert "Rotterdam." not in files["USER"].replace("not Rotterdam.", "")
    assert "Postgres 16" in files["MEMORY"]
    assert "Postgres 15 database" not in files["MEMORY"]
    assert "简体字" in files["SOUL"]
    assert "pandas" in files["SOUL"]
    assert "DuckDB" in files["MEMORY"]
    assert "tulip-harbour-42" not in "".join(files.values())


def test_the_examples_curate_into_clean_facts_without_the_issues_seen_before() -> None:
    files = curated()
    every = "\n".join(files.values())
    bullets = [line[2:] for line in every.splitlines() if line.startswith("- ")]
    assert "Commutes by train (since 2026-09-30; before: cycling)" in bullets
    assert "Lives in Utrecht (since 2026-09-30; before: Rotterdam)" in bullets
    assert not any("Cycles 12 km" in b for b in bullets)
    assert "They upgraded it" not in every
    assert "jacket" not in every
    assert sum("DuckDB" in b for b in bullets) == 1
    assert not any(
        b.startswith(("User:", "User instruction:", "Assistant agreed:")) for b in bullets
    )
    assert "Agreed:" not in every
