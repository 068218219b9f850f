"""The viewer's pages and parts called directly (no server): diff rows, markup, filters."""

from __future__ import annotations

import http.client
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from starlette.responses import RedirectResponse

from reverie import MemoryEngine
from reverie.core.entries import HistoryEntry
from reverie.viewer import RunningViewer, changes, overview, reading, timeline
from reverie.viewer.app import local_person
from reverie.viewer.chart import day_chart
from reverie.viewer.diffview import parse, side_by_side, unified
from reverie.viewer.layout import View
from reverie.viewer.markup import Html, ago, esc, tag
from tests.viewer.conftest import TOKEN
from tests.viewer.sample import NO_MODEL, SampleClock

DIFF = """--- a/USER.md
+++ b/USER.md
@@ -1,3 +1,3 @@
 # User
--- a line that starts with dashes
-old
+new one
+new two
\\ No newline at end of file
--- /dev/null
+++ b/skills/x/SKILL.md
@@ -0,0 +1 @@
+hello
"""


def test_diff_rows_follow_the_hunk_counts() -> None:
    rows = parse(DIFF)
    kinds = [row.kind for row in rows]
    assert kinds == [
        "file",
        "hunk",
        "ctx",
        "del",
        "del",
        "add",
        "add",
        "note",
        "file",
        "hunk",
        "add",
    ]
    assert rows[0].text == "USER.md"
    assert rows[3].text == "-- a line that starts with dashes"
    assert (rows[3].old, rows[4].old, rows[5].new, rows[6].new) == (2, 3, 2, 3)
    assert rows[8].text == "skills/x/SKILL.md"
    assert rows[10].new == 1


def test_side_by_side_pairs_removed_and_added_runs() -> None:
    rows = parse(DIFF)
    split = side_by_side(rows)
    assert split.count('class="del"') == 2
    assert split.count('class="add"') == 3
    assert "No newline" in split
    assert unified(rows).count("<tr") == len(rows)


def test_markup_escapes_text_and_attributes() -> None:
    assert esc('<a href="x">') == "&lt;a href=&quot;x&quot;&gt;"
    assert esc(Html("<b>")) == "<b>"
    built = tag("input", type="text", value='"><script>', disabled=True, hidden=False, x=None)
    assert built == '<input type="text" value="&quot;&gt;&lt;script&gt;" disabled>'
    assert tag("p", "<i>", 3, None, Html("<br>"), data_line="a&b") == (
        '<p data-line="a&amp;b">&lt;i&gt;3<br></p>'
    )


@pytest.mark.parametrize(
    ("delta", "said"),
    [
        (timedelta(seconds=5), "just now"),
        (timedelta(minutes=5), "5 min"),
        (timedelta(hours=3), "3 h"),
        (timedelta(days=12), "12 d"),
        (timedelta(days=90), "2026-09-01"),
    ],
)
def test_ages_read_like_a_person_would_say_them(delta: timedelta, said: str) -> None:
    now = datetime(2026, 11, 30, tzinfo=UTC)
    assert ago(now - delta, now) == said
    assert ago(None, now) == "?"


def test_the_chart_says_when_there_is_nothing_to_draw() -> None:
    assert "no memory job has run yet" in day_chart({})


def test_markdown_lines_are_classified() -> None:
    assert overview.line_kind("## Heading") == ("h2", "Heading")
    assert overview.line_kind("#### Deep") == ("h3", "Deep")
    assert overview.line_kind("- fact") == ("bullet", "fact")
    assert overview.line_kind("    * nested") == ("bullet2", "nested")
    assert overview.line_kind("plain <b>") == ("text", "plain <b>")


def test_search_snippets_mark_matches_and_escape_the_rest() -> None:
    assert reading.snippet("a **<b>** c") == "a <mark>&lt;b&gt;</mark> c"
    assert reading.snippet("open **end") == "open **end"


@pytest.fixture
def empty(tmp_path: Path) -> MemoryEngine:
    return MemoryEngine.open(
        tmp_path / "ws", NO_MODEL, clock=SampleClock(), environ={}, dense="off"
    )


def test_pages_of_an_empty_workspace(empty: MemoryEngine) -> None:
    view = View(engine=empty)
    assert "No session yet." in reading.sessions_page(view)
    assert "no memory job has run yet" in overview.overview(view)
    page, status = timeline.timeline(View(engine=empty, query={"session": "nobody"}))
    assert status == 200
    assert "Nothing in this window." in page


def test_sessions_list_and_timeline_filters(sample: MemoryEngine) -> None:
    listing = reading.sessions_page(View(engine=sample))
    assert 'href="/session?key=telegram%3Azoe"' in listing
    only_work, _ = timeline.timeline(View(engine=sample, query={"session": "cli:work"}))
    assert "ship the viewer" in only_work.lower()
    assert "I prefer tea" not in only_work
    assert "init: workspace" not in only_work
    later, _ = timeline.timeline(View(engine=sample, query={"since": "2026-11-25"}))
    assert "Nothing in this window." in later
    same_day, _ = timeline.timeline(
        View(engine=sample, query={"since": "2026-11-24", "until": "2026-11-24"})
    )
    assert "init: workspace" in same_day
    around, _ = timeline.timeline(View(engine=sample, query={"cursor": "2"}))
    assert 'id="e-2"' in around
    assert "init: workspace" not in around


def test_entry_times_fall_back_to_the_stamp() -> None:
    entry = HistoryEntry(cursor=1, timestamp="2026-11-24 09:00", content="x")
    moment = timeline.entry_time(entry)
    assert moment is not None
    assert moment.strftime("%Y-%m-%d %H:%M") == "2026-11-24 09:00"
    assert timeline.entry_time(HistoryEntry(cursor=1, timestamp="whenever", content="x")) is None


def test_change_pages_answer_bad_input_plainly(sample: MemoryEngine) -> None:
    _, status = changes.commit_page(View(engine=sample), "nothere")
    assert status == 404
    missing = changes.restore(View(engine=sample, form_fields={"rev": "nothere"}))
    assert isinstance(missing, tuple)
    assert missing[1] == 404
    refused = changes.save_edit(View(engine=sample, form_fields={"path": "x/../y", "text": ""}))
    assert isinstance(refused, tuple)
    assert refused[1] == 400
    same = sample.read_file("SOUL.md")
    unchanged = changes.save_edit(
        View(engine=sample, form_fields={"path": "SOUL.md", "text": same})
    )
    assert isinstance(unchanged, RedirectResponse)
    assert unchanged.headers["location"] == "/?note=unchanged"


def test_the_editor_keeps_a_leading_blank_line_and_names_the_author(sample: MemoryEngine) -> None:
    sample.edit_file("SOUL.md", "\n# Soul\n", author="Ada")
    page, status = changes.edit_page(View(engine=sample, author="Bo"), path="SOUL.md")
    assert status == 200
    assert '<textarea name="text"' in page
    assert ">\n\n# Soul\n</textarea>" in page
    assert "author Bo" in page


def test_the_default_author_is_the_local_login_name() -> None:
    assert local_person()


def test_a_failing_store_is_a_page_not_a_crash(viewer: RunningViewer, sample: MemoryEngine) -> None:
    history = Path(sample.location) / "memory" / "history.jsonl"
    history.unlink()
    history.mkdir()  # reading history now fails with a StorageError
    conn = http.client.HTTPConnection(viewer.host, viewer.port, timeout=10)
    conn.request("GET", f"/timeline?token={TOKEN}")
    cookie = conn.getresponse().getheader("set-cookie", "").split(";", 1)[0]
    conn.close()
    conn = http.client.HTTPConnection(viewer.host, viewer.port, timeout=10)
    conn.request("GET", "/timeline", headers={"Cookie": cookie})
    response = conn.getresponse()
    assert response.status == 500
    assert "reverie could not do that" in response.read().decode()
    conn.close()
