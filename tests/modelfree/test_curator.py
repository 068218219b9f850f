"""The model-free curator: routing, merging, corrections, caps, expiry, a person's text kept."""

from __future__ import annotations

from datetime import date

import pytest

from reverie.modelfree import CurationResult, CuratorSettings, ModelFreeCurator, route
from reverie.store.entries import HistoryEntry
from reverie.store.memory_files import STARTER_TEXTS, MemoryFileName

TODAY = date(2026, 12, 1)


def entry(
    content: str, cursor: int = 1, timestamp: str = "2026-11-30 10:00", kind: str | None = None
) -> HistoryEntry:
    return HistoryEntry(cursor=cursor, timestamp=timestamp, content=content, kind=kind)


def curate(
    files: dict[MemoryFileName, str], *contents: str, settings: CuratorSettings | None = None
) -> CurationResult:
    entries = [entry(text, cursor=n) for n, text in enumerate(contents, start=1)]
    return ModelFreeCurator(settings).curate(files, entries, today=TODAY)


def bullets(text: str) -> list[str]:
    return [line[2:] for line in text.splitlines() if line.startswith("- ")]


@pytest.mark.parametrize(
    ("fact", "file"),
    [
        ("User: I live in Porto.", "USER"),
        ("User: 我喜欢喝绿茶。", "USER"),
        ("User instruction: Never use emojis.", "SOUL"),
        ("User instruction: 以后请用中文回答我。", "SOUL"),
        ("User instruction: Call me Sam.", "USER"),
        ("User correction: No, I meant reply in English.", "SOUL"),
        ("User correction: Actually, the API moved to v3.", "MEMORY"),
        ("Decided: Let's go with Postgres 16.", "MEMORY"),
        ("Assistant agreed: Agreed, we'll use DuckDB.", "MEMORY"),
        ("User: The release is planned for 2026-12-14.", "MEMORY"),
        ("The user prefers trains over flights.", "USER"),
        ("用户住在上海。", "USER"),
        ("Always reply in English.", "SOUL"),
        ("The assistant should keep answers short.", "SOUL"),
        ("The project uses Postgres 16.", "MEMORY"),
    ],
)
def test_facts_are_routed_to_the_file_they_belong_in(fact: str, file: MemoryFileName) -> None:
    assert route(fact) == file


def test_facts_land_as_bullets_under_the_starter_heading_and_marks_are_stripped() -> None:
    result = curate(
        {},
        "- [durable] User: I live in Porto.\n- [permanent] User instruction: Never use emojis.\n"
        "- [durable] Decided: Let's go with Postgres 16.",
    )
    assert result.new_texts["USER"] == STARTER_TEXTS["USER"] + "\n- User: I live in Porto.\n"
    assert bullets(result.new_texts["SOUL"]) == ["User instruction: Never use emojis."]
    assert bullets(result.new_texts["MEMORY"]) == ["Decided: Let's go with Postgres 16."]
    assert result.changed == ("SOUL", "USER", "MEMORY")
    assert [(c.action, c.file) for c in result.applied] == [
        ("add", "USER"),
        ("add", "SOUL"),
        ("add", "MEMORY"),
    ]


def test_an_exact_duplicate_is_not_appended_again() -> None:
    first = curate({}, "- [durable] User: I prefer green tea.")
    again = curate(dict(first.new_texts), "- [durable] user: I prefer green tea!")
    assert again.new_texts == first.new_texts
    assert again.changed == ()
    assert "already in USER" in again.skipped[0].reason


def test_a_near_duplicate_is_merged_into_the_existing_bullet() -> None:
    files: dict[MemoryFileName, str] = {
        "USER": "# User\n\n- User: I prefer green tea in the morning.\n"
    }
    result = curate(
        files, "- [durable] User: I really prefer green tea in the mornings, with honey."
    )
    assert bullets(result.new_texts["USER"]) == [
        "User: I really prefer green tea in the mornings, with honey."
    ]
    (change,) = result.applied
    assert change.action == "merge"
    assert change.previous == "User: I prefer green tea in the morning."


def test_a_correction_replaces_the_most_similar_fact() -> None:
    files: dict[MemoryFileName, str] = {
        "USER": "# User\n\n- User: I'm a backend engineer.\n- User: I live in Lisbon.\n"
    }
    result = curate(files, "- [correction] User correction: Actually, I live in Porto, not Lisbon.")
    assert bullets(result.new_texts["USER"]) == [
        "User: I'm a backend engineer.",
        "User: Actually, I live in Porto, not Lisbon.",
    ]
    assert result.applied[0].action == "replace"
    assert result.applied[0].previous == "User: I live in Lisbon."


def test_a_chinese_correction_replaces_the_old_fact() -> None:
    files: dict[MemoryFileName, str] = {
        "USER": "# User\n\n- User: 我住在上海。\n- User: 我喜欢喝绿茶。\n"
    }
    result = curate(files, "- [correction] User correction: 其实我住在杭州，不是上海。")
    assert bullets(result.new_texts["USER"]) == [
        "User: 其实我住在杭州，不是上海。",
        "User: 我喜欢喝绿茶。",
    ]


def test_a_correction_finds_its_fact_in_another_file() -> None:
    files: dict[MemoryFileName, str] = {
        "MEMORY": "# Memory\n\n- The registry runs Postgres 15 on the office server.\n"
    }
    result = curate(
        files, "- [correction] User correction: No, I meant the registry runs Postgres 16."
    )
    assert bullets(result.new_texts["MEMORY"]) == [
        "User: No, I meant the registry runs Postgres 16."
    ]


def test_a_correction_with_nothing_similar_is_added() -> None:
    result = curate({}, "- [correction] User correction: Actually, the standup moved to Tuesdays.")
    assert bullets(result.new_texts["MEMORY"]) == ["User: Actually, the standup moved to Tuesdays."]
    assert result.applied[0].action == "add"


def test_skip_marks_and_secrets_are_never_written() -> None:
    result = curate(
        {},
        "- [skip] User: said hello\n"
        "- [durable] The deploy token is ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4\n"
        "- [durable] User: my password is hunter2",
    )
    assert result.changed == ()
    assert [s.reason for s in result.skipped] == [
        "marked [skip]",
        "looks like a credential",
        "looks like a credential",
    ]
    assert all(s.cursor == 1 for s in result.skipped)


def test_a_persons_text_is_kept_exactly_and_new_facts_follow_it() -> None:
    person = (
        "# About me\n\nI wrote this paragraph myself.\n\n## Work\n\n- Works at Acme\n"
        "  - nested detail stays\n\nA closing note.\n"
    )
    result = curate({"USER": person}, "- [durable] User: I prefer trains to flights.")
    assert result.new_texts["USER"] == person + "\n- User: I prefer trains to flights.\n"


def test_untouched_files_come_back_exactly_as_given() -> None:
    files: dict[MemoryFileName, str] = {"SOUL": "custom soul, no newline", "USER": ""}
    result = curate(files, "(nothing)")
    assert result.new_texts == {"SOUL": "custom soul, no newline", "USER": "", "MEMORY": ""}
    assert result.applied == ()


def test_an_ephemeral_fact_gets_its_entry_date_and_plain_lines_are_tolerated() -> None:
    result = curate(
        {},
        "- [ephemeral] User: I'm at the Berlin office this week\n"
        "The office wifi is called Harbour.",
    )
    assert bullets(result.new_texts["USER"]) == [
        "User: I'm at the Berlin office this week (as of 2026-11-30)"
    ]
    assert bullets(result.new_texts["MEMORY"]) == ["The office wifi is called Harbour."]


def test_a_raw_transcript_entry_is_summarised_first() -> None:
    raw = (
        "[2026-11-30 09:00] USER: I live in Ghent. Never use emojis.\n\n"
        "[2026-11-30 09:01] ASSISTANT: Noted."
    )
    result = ModelFreeCurator().curate({}, [entry(raw, kind="raw")], today=TODAY)
    assert bullets(result.new_texts["USER"]) == ["User: I live in Ghent."]
    assert bullets(result.new_texts["SOUL"]) == ["User instruction: Never use emojis."]


def test_expired_ephemeral_facts_are_dropped_when_a_file_nears_its_cap() -> None:
    old = [
        f"- User: I'm travelling to city {n} this week (as of 2026-10-0{n})" for n in range(1, 4)
    ]
    fresh = "- User: I'm at home this weekend (as of 2026-11-29)"
    durable = [
        f"- User: I collect stamp series number {n} from the years before {1900 + n}"
        for n in range(6)
    ]
    text = "# User\n\n" + "\n".join([*old, fresh, *durable]) + "\n"
    settings = CuratorSettings(file_chars=len(text) + 40)
    result = curate(
        {"USER": text}, "- [durable] User: I prefer window seats on long trains.", settings=settings
    )
    kept = bullets(result.new_texts["USER"])
    assert not any("city" in b for b in kept)
    assert fresh[2:] in kept
    assert kept[-1] == "User: I prefer window seats on long trains."
    assert [c.action for c in result.applied] == ["expire", "expire", "expire", "add"]


def test_expiry_waits_until_the_file_nears_its_cap() -> None:
    text = "# User\n\n- User: I'm travelling to Oslo this week (as of 2026-01-01)\n"
    result = curate({"USER": text}, "- [durable] User: I prefer window seats.")
    assert "Oslo" in result.new_texts["USER"]


def test_a_fact_that_does_not_fit_under_the_cap_is_skipped() -> None:
    text = "# User\n\n- User: I collect stamps from the years before 1900 and write about them.\n"
    result = curate(
        {"USER": text},
        "- [durable] User: I prefer window seats.",
        settings=CuratorSettings(file_chars=len(text) + 5),
    )
    assert result.new_texts["USER"] == text
    assert "cap" in result.skipped[0].reason


def test_an_overlong_fact_is_skipped_with_a_reason() -> None:
    result = curate(
        {}, "- [durable] " + "word " * 200, settings=CuratorSettings(max_fact_chars=100)
    )
    assert result.changed == ()
    assert result.skipped[0].reason == "longer than 100 characters"


def test_a_correction_seen_twice_is_applied_once() -> None:
    correction = "- [correction] User correction: Actually, I live in Porto, not Lisbon."
    files: dict[MemoryFileName, str] = {"USER": "# User\n\n- User: I live in Lisbon.\n"}
    result = curate(files, correction, correction)
    assert bullets(result.new_texts["USER"]) == ["User: Actually, I live in Porto, not Lisbon."]
    assert [c.action for c in result.applied] == ["replace"]
    assert result.skipped[0].reason == "correction already in USER"
