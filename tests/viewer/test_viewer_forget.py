"""Forgetting a line from the viewer over real HTTP: the plan on GET, one commit on POST.

The plan page changes nothing; the POST needs the session's CSRF token and the same origin
like every other form; a forget removes the line from the file as one ``forget:`` commit
and the report links to it.
"""

from __future__ import annotations

from urllib.parse import urlencode

from reverie import MemoryEngine
from reverie.viewer import RunningViewer
from reverie.viewer.forgetting import forget_text
from tests.viewer.sample import HOSTILE_LINE
from tests.viewer.test_viewer_http import csrf_of, login, request

FORM = "application/x-www-form-urlencoded"


def test_the_text_to_forget_is_the_line_without_its_bullet() -> None:
    assert forget_text("- Lives in Riga") == "Lives in Riga"
    assert forget_text("  * nested *bold* fact ") == "nested *bold* fact"
    assert forget_text("A plain sentence.") == "A plain sentence."


def post(viewer: RunningViewer, headers: dict[str, str], fields: dict[str, str]) -> tuple[int, str]:
    status, _, page = request(
        viewer, "/forget", method="POST", headers=headers, body=urlencode(fields)
    )
    return status, page


def test_the_why_page_offers_to_forget_the_line_without_its_bullet(viewer: RunningViewer) -> None:
    cookie = login(viewer)
    query = urlencode({"path": "USER.md", "line": "- Lives in Riga"})
    _, _, why = request(viewer, f"/why?{query}", headers={"Cookie": cookie})
    assert "Forget this…" in why
    assert 'name="text" value="Lives in Riga"' in why


def test_forget_a_line_shows_the_plan_then_commits_on_a_guarded_post(
    viewer: RunningViewer, sample: MemoryEngine
) -> None:
    cookie = login(viewer)
    commits = len(sample.log(50))
    status, _, plan = request(viewer, "/forget?text=Lives+in+Riga", headers={"Cookie": cookie})
    assert status == 200
    for shown in ("USER.md:6", "History entries", "#1 · telegram:zoe", "I live in Riga"):
        assert shown in plan
    assert "Also purge the audit history" in plan
    assert len(sample.log(50)) == commits  # nothing changes on GET
    assert "- Lives in Riga\n" in sample.read_file("USER.md")

    headers = {"Cookie": cookie, "Content-Type": FORM, "Origin": viewer.url}
    token = csrf_of(plan)
    refused = [
        post(viewer, headers, {"text": "Lives in Riga"}),
        post(viewer, headers, {"text": "Lives in Riga", "csrf": "wrong"}),
        post(viewer, {**headers, "Origin": "http://evil.example"}, {"text": "x y", "csrf": token}),
    ]
    assert [status for status, _ in refused] == [403, 403, 403]
    assert len(sample.log(50)) == commits
    assert "- Lives in Riga\n" in sample.read_file("USER.md")

    status, report = post(viewer, headers, {"text": "Lives in Riga", "csrf": token})
    assert status == 200
    head = sample.log(1)[0]
    assert head.subject.startswith("forget: 1 line(s), entries #1")
    assert f'href="/commit/{head.sha}"' in report
    assert "Forgot 1 line(s)" in report
    user = sample.read_file("USER.md")
    assert "Riga" not in user
    assert "- Prefers tea to coffee\n" in user
    assert "Riga" not in sample.session("telegram:zoe").messages[0].text


def test_the_plan_escapes_memory_text_and_refuses_a_blank_text(viewer: RunningViewer) -> None:
    cookie = login(viewer)
    text = forget_text(HOSTILE_LINE)
    _, _, plan = request(viewer, f"/forget?{urlencode({'text': text})}", headers={"Cookie": cookie})
    assert "&lt;script&gt;document.title" in plan
    assert "<script>document" not in plan
    status, _, said = request(viewer, "/forget?text=+", headers={"Cookie": cookie})
    assert status == 400
    assert "at least 3 letters or digits" in said
    _, _, nothing = request(viewer, "/forget?text=Lisbon+forever", headers={"Cookie": cookie})
    assert "there is nothing to forget" in nothing
    assert 'action="/forget"' not in nothing


def test_forget_with_purge_rewrites_the_history_and_links_the_rewritten_commit(
    viewer: RunningViewer, sample: MemoryEngine
) -> None:
    cookie = login(viewer)
    _, _, plan = request(viewer, "/forget?text=Lives+in+Riga", headers={"Cookie": cookie})
    headers = {"Cookie": cookie, "Content-Type": FORM, "Origin": viewer.url}
    fields = {"text": "Lives in Riga", "csrf": csrf_of(plan), "purge": "yes"}
    status, report = post(viewer, headers, fields)
    assert status == 200
    assert "no trace is left" in report
    head = sample.log(1)[0]
    assert head.subject.startswith("forget: ")
    assert f'href="/commit/{head.sha}"' in report
    for commit in sample.log(50):
        assert "Lives in Riga" not in sample.show(commit.sha).diff
