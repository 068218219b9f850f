"""The viewer over real HTTP (uvicorn on loopback): token, cookie, CSRF, hosts, escaping.

Plain ``http.client`` requests, so each header is exactly what the test says; the browser
tests (``test_viewer_browser``) then check the same pages as a person sees them.
"""

from __future__ import annotations

import http.client
from datetime import datetime, timedelta, timezone
from urllib.parse import urlencode

import pytest

from reverie import MemoryEngine
from reverie.viewer import RunningViewer, create_viewer, serve_viewer
from reverie.viewer.guard import COOKIE, Guard
from tests.viewer.conftest import TOKEN
from tests.viewer.sample import HOSTILE_LINE


def request(
    viewer: RunningViewer,
    path: str,
    *,
    method: str = "GET",
    headers: dict[str, str] | None = None,
    body: str | None = None,
) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection(viewer.host, viewer.port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        text = response.read().decode("utf-8")
        return response.status, {k.lower(): v for k, v in response.getheaders()}, text
    finally:
        conn.close()


def login(viewer: RunningViewer) -> str:
    status, headers, _ = request(viewer, f"/?token={TOKEN}")
    assert status == 303
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie or "SameSite=Strict" in cookie
    return cookie.split(";", 1)[0]


def csrf_of(page: str) -> str:
    marker = 'name="csrf" value="'
    start = page.index(marker) + len(marker)
    return page[start : page.index('"', start)]


def test_without_the_token_nothing_is_shown(viewer: RunningViewer) -> None:
    for path in ("/", "/timeline", "/search?q=Zoe", "/sessions", "/commit/HEAD", "/edit"):
        status, _headers, page = request(viewer, path)
        assert status == 401
        assert "Zoe" not in page
        assert "reverie serve" in page


def test_a_wrong_token_or_cookie_is_refused(viewer: RunningViewer) -> None:
    status, headers, _ = request(viewer, "/?token=nope")
    assert status == 401
    assert "set-cookie" not in headers
    status, _, page = request(viewer, "/", headers={"Cookie": f"{COOKIE}=forged"})
    assert status == 401
    assert "Zoe" not in page


def test_the_token_sets_a_cookie_and_redirects_to_the_clean_url(viewer: RunningViewer) -> None:
    status, headers, _ = request(viewer, f"/search?q=tea&token={TOKEN}")
    assert status == 303
    assert headers["location"] == "/search?q=tea"
    cookie = headers["set-cookie"].split(";", 1)[0]
    _, headers, _ = request(viewer, f"//evil.example/?token={TOKEN}")
    assert not headers.get("location", "/").startswith("//")
    status, headers, page = request(viewer, "/search?q=tea", headers={"Cookie": cookie})
    assert status == 200
    assert "tea" in page
    assert "script-src 'self'" in headers["content-security-policy"]
    assert headers["cache-control"] == "no-store"


def test_memory_text_is_escaped_never_html(viewer: RunningViewer) -> None:
    cookie = login(viewer)
    _, _, page = request(viewer, "/", headers={"Cookie": cookie})
    assert "<script>document.title" not in page
    assert "&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;" in page
    _, _, diff = request(viewer, "/commit/HEAD?view=split", headers={"Cookie": cookie})
    assert "&lt;script&gt;" in diff
    assert "<script>document" not in diff


def test_a_post_needs_the_csrf_token_and_the_same_origin(
    viewer: RunningViewer, sample: MemoryEngine
) -> None:
    cookie = login(viewer)
    _, _, page = request(viewer, "/commit/HEAD", headers={"Cookie": cookie})
    token = csrf_of(page)
    commits = len(sample.log(50))
    form = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"}
    attempts = [
        ({**form, "Origin": viewer.url}, {"rev": "HEAD~1"}),
        ({**form, "Origin": viewer.url}, {"rev": "HEAD~1", "csrf": "wrong"}),
        ({**form, "Origin": "http://evil.example"}, {"rev": "HEAD~1", "csrf": token}),
        (form, {"rev": "HEAD~1", "csrf": token}),
    ]
    for headers, fields in attempts:
        status, _, _ = request(
            viewer, "/restore", method="POST", headers=headers, body=urlencode(fields)
        )
        assert status == 403
    assert len(sample.log(50)) == commits
    status, headers, _ = request(
        viewer,
        "/restore",
        method="POST",
        headers={**form, "Referer": viewer.url + "/commit/HEAD"},
        body=urlencode({"rev": "HEAD~1", "csrf": token}),
    )
    assert status == 303
    assert headers["location"].endswith("?note=restored")
    assert sample.log(1)[0].subject.startswith("restore: ")


def test_a_foreign_host_header_is_refused(viewer: RunningViewer) -> None:
    cookie = login(viewer)
    status, _, page = request(viewer, "/", headers={"Cookie": cookie, "Host": "evil.example"})
    assert status == 421
    assert "Zoe" not in page


def test_errors_are_pages_not_tracebacks(viewer: RunningViewer) -> None:
    cookie = login(viewer)
    checks = {
        "/commit/feedface": 404,
        "/session?key=nobody": 404,
        "/timeline?since=yesterday": 400,
        "/timeline?cursor=x": 400,
        "/edit?path=../etc/passwd": 400,
        "/assets/nothing.css": 404,
        "/assets/viewer.js": 200,
    }
    for path, expected in checks.items():
        status, _, _ = request(viewer, path, headers={"Cookie": cookie})
        assert status == expected, path


def test_a_refused_edit_keeps_the_persons_text(viewer: RunningViewer) -> None:
    cookie = login(viewer)
    _, _, page = request(viewer, "/edit?path=USER.md", headers={"Cookie": cookie})
    fields = {"csrf": csrf_of(page), "path": "USER.md", "text": "mine\n", "sha": "0" * 64}
    status, _, page = request(
        viewer,
        "/edit",
        method="POST",
        headers={
            "Cookie": cookie,
            "Origin": viewer.url,
            "Content-Type": "application/x-www-form-urlencoded",
        },
        body=urlencode(fields),
    )
    assert status == 400
    assert "changed since you opened it" in page
    assert "\nmine\n</textarea>" in page


def test_the_viewer_serves_only_loopback_by_default(sample: MemoryEngine) -> None:
    with pytest.raises(ValueError, match="loopback"), serve_viewer(sample, TOKEN, host="0.0.0.0"):
        pass
    with pytest.raises(ValueError, match="token"):
        create_viewer(sample, "")


def test_guard_host_names() -> None:
    guard = Guard()
    for host in ("127.0.0.1:8000", "localhost", "[::1]:9", "LOCALHOST:1"):
        assert guard.host_refusal(host) is None
    for host in ("evil.example", "127.0.0.1.evil.example:80", "[::2]:9"):
        assert guard.host_refusal(host) is not None
    assert Guard(allowed_hosts=("*",)).host_refusal("any.example") is None


def test_a_host_header_hiding_another_host_is_refused(viewer: RunningViewer) -> None:
    tricks = (
        "127.0.0.1:1@evil.example",
        "localhost:80@evil.example:80",
        "127.0.0.1:80:evil.example",
        "127.0.0.1 evil.example",
        "[::1]:1@evil.example",
        "127.0.0.1:abc",
    )
    for host in tricks:
        status, _headers, _page = request(viewer, f"/?token={TOKEN}", headers={"Host": host})
        assert status == 421, host
    status, _headers, _page = request(viewer, f"/?token={TOKEN}", headers={"Host": "127.0.0.1:9"})
    assert status == 303


def test_a_line_links_to_its_provenance_and_a_hook_can_replace_it(
    viewer: RunningViewer, sample: MemoryEngine
) -> None:
    cookie = login(viewer)
    _, _, page = request(viewer, "/", headers={"Cookie": cookie})
    assert "Where does this line come from?" in page
    seen: list[tuple[str, str]] = []

    def why(path: str, line: str) -> list[str]:
        seen.append((path, line))
        return ["from history #1 <b>(telegram:zoe)</b>"]

    with serve_viewer(sample, TOKEN, provenance=why) as wired:
        cookie = login(wired)
        _, _, page = request(wired, "/", headers={"Cookie": cookie})
        assert "Where does this line come from?" in page
        query = urlencode({"path": "USER.md", "line": HOSTILE_LINE})
        _, _, page = request(wired, f"/why?{query}", headers={"Cookie": cookie})
    assert seen == [("USER.md", HOSTILE_LINE)]
    assert "from history #1 &lt;b&gt;(telegram:zoe)&lt;/b&gt;" in page
    assert "<script>document" not in page


def test_every_page_shows_one_instant_in_utc(viewer: RunningViewer, sample: MemoryEngine) -> None:
    at = datetime(2026, 3, 1, 23, 30, tzinfo=timezone(timedelta(hours=2)))
    sample.record(
        "tz:one", [{"role": "user", "content": "zanzibar ferry", "timestamp": at.isoformat()}]
    )
    cookie = login(viewer)
    pages = ("/session?key=tz:one", "/search?q=zanzibar")
    for path in pages:
        status, _headers, page = request(viewer, path, headers={"Cookie": cookie})
        assert status == 200, path
        assert "2026-03-01 21:30 UTC" in page, path
        assert "23:30" not in page, path


def test_curation_marks_never_show_in_the_viewer(
    viewer: RunningViewer, sample: MemoryEngine
) -> None:
    sample.record(
        "tags:one",
        [
            {"role": "user", "content": "I keep my kayak at the marina in Faro."},
            {"role": "assistant", "content": "Noted."},
        ],
    )
    assert sample.compact("tags:one").outcome == "summarised"
    assert any("[durable]" in entry.content for entry in sample.history(session_key="tags:one"))
    cookie = login(viewer)
    for path in ("/session?key=tags:one", "/timeline", "/search?q=kayak"):
        status, _headers, page = request(viewer, path, headers={"Cookie": cookie})
        assert status == 200, path
        assert "kayak" in page, path
        assert "[durable]" not in page, path
