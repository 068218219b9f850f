"""The viewer in a real headless Chromium (Debian's, driven by Playwright), as a person uses it.

Load the page with the token, see the files, open a commit diff, search, edit and save a line
(a commit appears), restore; without the token nothing is shown; a memory line holding
``<script>`` renders as text and does not run. See ``conftest.chromium_or_skip`` for when
these skip (never in CI).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from reverie import MemoryEngine
from reverie.viewer import RunningViewer
from tests.viewer.conftest import chromium_or_skip
from tests.viewer.sample import HOSTILE_LINE


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = chromium_or_skip()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(executable))
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(10_000)
    yield opened
    context.close()


def open_viewer(page: Page, viewer: RunningViewer) -> None:
    page.goto(viewer.login_url)
    expect(page).to_have_url(viewer.url + "/")


def test_the_token_link_opens_the_overview_with_the_files(
    page: Page, viewer: RunningViewer
) -> None:
    open_viewer(page, viewer)
    expect(page.locator("h1")).to_have_text("What the agent remembers")
    for path in ("SOUL.md", "USER.md", "memory/MEMORY.md"):
        expect(page.locator("section.file h2 code", has_text=path)).to_be_visible()
    line = page.locator("details.line", has_text="Project Lark ships on Friday")
    expect(line.locator(".age")).to_be_visible()
    line.locator("summary").click()
    expect(line.locator(".origin")).to_contain_text("by Ada")
    expect(line.locator(".origin")).to_contain_text("Where does this line come from?")
    expect(page.locator("svg.chart rect")).to_have_count(5)


def test_without_the_token_nothing_is_shown(page: Page, viewer: RunningViewer) -> None:
    response = page.goto(viewer.url + "/")
    assert response is not None
    assert response.status == 401
    assert "Zoe" not in page.content()
    page.goto(viewer.url + "/?token=wrong")
    assert "Zoe" not in page.content()


def test_a_memory_line_holding_script_renders_as_text(page: Page, viewer: RunningViewer) -> None:
    open_viewer(page, viewer)
    hostile = HOSTILE_LINE.removeprefix("- ")
    expect(page.locator("details.line .text", has_text="<script>")).to_have_text(hostile)
    assert page.title() == "What the agent remembers · reverie"
    scripts = page.evaluate("Array.from(document.scripts).map(s => s.src)")
    assert scripts == [viewer.url + "/assets/viewer.js"]


def test_a_commit_diff_opens_unified_and_side_by_side(page: Page, viewer: RunningViewer) -> None:
    open_viewer(page, viewer)
    page.get_by_role("link", name="Timeline").click()
    page.get_by_role("link", name="edit: memory/MEMORY.md", exact=True).click()
    added = page.locator("table.diff.unified tr.add")
    expect(added).to_have_count(1)
    expect(added).to_contain_text("+- Project Lark ships on Friday")
    page.get_by_role("link", name="side by side").click()
    expect(page.locator("table.diff.split td.add")).to_have_text("- Project Lark ships on Friday")


def test_search_finds_and_links_to_the_message(page: Page, viewer: RunningViewer) -> None:
    open_viewer(page, viewer)
    page.get_by_role("link", name="Search").click()
    page.get_by_role("searchbox").fill("tea")
    page.keyboard.press("Enter")
    hit = page.locator(".hit", has_text="message 0")
    expect(hit.locator("mark").first).to_have_text(re.compile("tea", re.IGNORECASE))
    hit.locator("a").first.click()
    expect(page).to_have_url(re.compile(r"/session\?key=telegram%3Azoe#m-0$"))
    expect(page.locator("#m-0")).to_contain_text("I prefer tea to coffee")
    expect(page.locator(".mark").first).to_contain_text("compacted up to here")


def test_edit_and_save_a_line_makes_a_commit(
    page: Page, viewer: RunningViewer, sample: MemoryEngine
) -> None:
    open_viewer(page, viewer)
    page.locator("#file-USER\\.md").get_by_role("link", name="Edit").click()
    editor = page.locator("textarea[name=text]")
    editor.fill(editor.input_value() + "- Zoe's cat is called Pixel\n")
    page.get_by_role("button", name="Save as a commit").click()
    expect(page.locator(".notice")).to_contain_text("Saved")
    expect(page.locator("table.diff tr.add")).to_contain_text("Zoe's cat is called Pixel")
    head = sample.log(1)[0]
    assert head.subject == "edit: USER.md"
    assert head.author == "Ada <ada@example.org>"
    assert "- Zoe's cat is called Pixel\n" in sample.read_file("USER.md")
    page.get_by_role("link", name="Overview").click()
    expect(page.locator("details.line", has_text="Zoe's cat is called Pixel")).to_be_visible()


def test_restore_puts_the_files_back_as_a_new_commit(
    page: Page, viewer: RunningViewer, sample: MemoryEngine
) -> None:
    before_edits = sample.log(3)[2]
    assert before_edits.subject.startswith("dream:")
    open_viewer(page, viewer)
    page.goto(f"{viewer.url}/commit/{before_edits.sha}")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Restore the files as of this commit").click()
    expect(page.locator(".notice")).to_contain_text("Restored")
    assert sample.log(1)[0].subject.startswith(f"restore: {before_edits.short}")
    assert "Project Lark ships on Friday" not in sample.read_file("memory/MEMORY.md")
    assert "<script>" not in sample.read_file("USER.md")


def test_a_declined_restore_changes_nothing(
    page: Page, viewer: RunningViewer, sample: MemoryEngine
) -> None:
    commits = len(sample.log(50))
    open_viewer(page, viewer)
    page.goto(f"{viewer.url}/commit/HEAD~1")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Restore the files as of this commit").click()
    expect(page.locator("h1")).to_have_text("edit: memory/MEMORY.md")
    assert len(sample.log(50)) == commits


def test_forget_a_line_from_its_provenance_page(
    page: Page, viewer: RunningViewer, sample: MemoryEngine
) -> None:
    open_viewer(page, viewer)
    line = page.locator("details.line", has_text="Lives in Riga")
    line.locator("summary").click()
    line.get_by_role("link", name="Where does this line come from?").click()
    page.get_by_role("button", name="Forget this…").click()
    expect(page.locator("h1")).to_have_text("Forget this?")
    expect(page.locator("table.lines")).to_contain_text("USER.md:6")
    page.get_by_role("button", name="Forget all of this").click()
    expect(page.locator(".notice")).to_contain_text("Forgot 1 line(s)")
    head = sample.log(1)[0]
    assert head.subject.startswith("forget: ")
    page.get_by_role("link", name=head.short).click()
    expect(page.locator("table.diff tr.del")).to_contain_text("- Lives in Riga")
    page.get_by_role("link", name="Overview").click()
    expect(page.locator("details.line", has_text="Prefers tea to coffee")).to_be_visible()
    expect(page.locator("details.line", has_text="Lives in Riga")).to_have_count(0)
