"""The viewer in a real headless Chromium (Debian's, driven by Playwright), as a person uses it.

Load the page with the token, see the files, open a commit diff, search, edit and save a line
(a commit appears), restore; without the token nothing is shown; a memory line holding
``<script>`` renders as text and does not run. See ``conftest.chromium_or_skip`` for when
these skip (never in CI).

One test walks the viewer as a person would: first only reading (and declining a restore),
then changing memory (edit, forget, restore). Each step is its own helper and assertion with
its own message; the walk pays one workspace copy, one viewer, one login and one Chromium
launch (some 1.7 s of CPU, paid once per worker that runs a browser test: one test cannot be
split over two workers).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from reverie import CommitInfo, MemoryEngine
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


def test_a_person_reads_then_changes_memory_in_a_browser(
    page: Page, viewer: RunningViewer, sample: MemoryEngine
) -> None:
    _without_the_token_nothing_is_shown(page, viewer)
    open_viewer(page, viewer)
    _the_overview_shows_the_files(page)
    _a_memory_line_holding_script_renders_as_text(page, viewer)
    _a_commit_diff_opens_unified_and_side_by_side(page)
    _search_finds_and_links_to_the_message(page)
    _a_declined_restore_changes_nothing(page, viewer, sample)

    dreamt = sample.log(3)[2]
    assert dreamt.subject.startswith("dream:"), "the sample's third newest commit is the dream"
    page.goto(viewer.url + "/")
    _edit_and_save_a_line_makes_a_commit(page, sample)
    _forget_a_line_from_its_provenance_page(page, sample)
    _restore_puts_the_files_back_as_a_new_commit(page, viewer, sample, dreamt)


def _without_the_token_nothing_is_shown(page: Page, viewer: RunningViewer) -> None:
    response = page.goto(viewer.url + "/")
    assert response is not None
    assert response.status == 401, "without the token the viewer must answer 401"
    assert "Zoe" not in page.content(), "without the token no memory may be shown"
    page.goto(viewer.url + "/?token=wrong")
    assert "Zoe" not in page.content(), "with a wrong token no memory may be shown"


def _the_overview_shows_the_files(page: Page) -> None:
    expect(page.locator("h1"), "the token link opens the overview").to_have_text(
        "What the agent remembers"
    )
    for path in ("SOUL.md", "USER.md", "memory/MEMORY.md"):
        file = page.locator("section.file h2 code", has_text=path)
        expect(file, f"the overview shows {path}").to_be_visible()
    line = page.locator("details.line", has_text="Project Lark ships on Friday")
    expect(line.locator(".age"), "a memory line shows its age").to_be_visible()
    line.locator("summary").click()
    origin = line.locator(".origin")
    expect(origin, "an opened line names its author").to_contain_text("by Ada")
    expect(origin, "an opened line links its provenance").to_contain_text(
        "Where does this line come from?"
    )
    expect(page.locator("svg.chart rect"), "the chart has a bar per day").to_have_count(5)


def _a_memory_line_holding_script_renders_as_text(page: Page, viewer: RunningViewer) -> None:
    hostile = HOSTILE_LINE.removeprefix("- ")
    shown = page.locator("details.line .text", has_text="<script>")
    expect(shown, "a line holding <script> renders as text").to_have_text(hostile)
    assert page.title() == "What the agent remembers · reverie", "the script must not run"
    scripts = page.evaluate("Array.from(document.scripts).map(s => s.src)")
    assert scripts == [viewer.url + "/assets/viewer.js"], "only the viewer's own script loads"


def _a_commit_diff_opens_unified_and_side_by_side(page: Page) -> None:
    page.get_by_role("link", name="Timeline").click()
    page.get_by_role("link", name="edit: memory/MEMORY.md", exact=True).click()
    added = page.locator("table.diff.unified tr.add")
    expect(added, "the unified diff has the one added line").to_have_count(1)
    expect(added).to_contain_text("+- Project Lark ships on Friday")
    page.get_by_role("link", name="side by side").click()
    expect(page.locator("table.diff.split td.add"), "the side-by-side diff").to_have_text(
        "- Project Lark ships on Friday"
    )


def _search_finds_and_links_to_the_message(page: Page) -> None:
    page.get_by_role("link", name="Search").click()
    page.get_by_role("searchbox").fill("tea")
    page.keyboard.press("Enter")
    hit = page.locator(".hit", has_text="message 0")
    expect(hit.locator("mark").first, "the hit marks the word").to_have_text(
        re.compile("tea", re.IGNORECASE)
    )
    hit.locator("a").first.click()
    expect(page, "the hit links to its message").to_have_url(
        re.compile(r"/session\?key=telegram%3Azoe#m-0$")
    )
    expect(page.locator("#m-0")).to_contain_text("I prefer tea to coffee")
    expect(page.locator(".mark").first, "the session shows its compaction mark").to_contain_text(
        "compacted up to here"
    )


def _a_declined_restore_changes_nothing(
    page: Page, viewer: RunningViewer, sample: MemoryEngine
) -> None:
    commits = len(sample.log(50))
    page.goto(f"{viewer.url}/commit/HEAD~1")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Restore the files as of this commit").click()
    expect(page.locator("h1"), "a declined restore stays on the commit").to_have_text(
        "edit: memory/MEMORY.md"
    )
    assert len(sample.log(50)) == commits, "a declined restore must make no commit"


def _edit_and_save_a_line_makes_a_commit(page: Page, sample: MemoryEngine) -> None:
    page.locator("#file-USER\\.md").get_by_role("link", name="Edit").click()
    editor = page.locator("textarea[name=text]")
    editor.fill(editor.input_value() + "- Zoe's cat is called Pixel\n")
    page.get_by_role("button", name="Save as a commit").click()
    expect(page.locator(".notice"), "saving says so").to_contain_text("Saved")
    expect(page.locator("table.diff tr.add"), "saving shows the diff").to_contain_text(
        "Zoe's cat is called Pixel"
    )
    head = sample.log(1)[0]
    assert head.subject == "edit: USER.md", "saving makes an edit commit"
    assert head.author == "Ada <ada@example.org>", "the commit is by the viewer's author"
    assert "- Zoe's cat is called Pixel\n" in sample.read_file("USER.md")
    page.get_by_role("link", name="Overview").click()
    expect(
        page.locator("details.line", has_text="Zoe's cat is called Pixel"),
        "the overview shows the saved line",
    ).to_be_visible()


def _forget_a_line_from_its_provenance_page(page: Page, sample: MemoryEngine) -> None:
    line = page.locator("details.line", has_text="Lives in Riga")
    line.locator("summary").click()
    line.get_by_role("link", name="Where does this line come from?").click()
    page.get_by_role("button", name="Forget this…").click()
    expect(page.locator("h1"), "forgetting asks first").to_have_text("Forget this?")
    expect(page.locator("table.lines"), "the plan lists the line").to_contain_text("USER.md:6")
    page.get_by_role("button", name="Forget all of this").click()
    expect(page.locator(".notice"), "forgetting says what it did").to_contain_text(
        "Forgot 1 line(s)"
    )
    head = sample.log(1)[0]
    assert head.subject.startswith("forget: "), "forgetting makes a forget commit"
    page.get_by_role("link", name=head.short).click()
    expect(page.locator("table.diff tr.del"), "the forget commit removes the line").to_contain_text(
        "- Lives in Riga"
    )
    page.get_by_role("link", name="Overview").click()
    expect(
        page.locator("details.line", has_text="Prefers tea to coffee"),
        "the other lines stay",
    ).to_be_visible()
    expect(
        page.locator("details.line", has_text="Lives in Riga"), "the forgotten line is gone"
    ).to_have_count(0)


def _restore_puts_the_files_back_as_a_new_commit(
    page: Page, viewer: RunningViewer, sample: MemoryEngine, dreamt: CommitInfo
) -> None:
    page.goto(f"{viewer.url}/commit/{dreamt.sha}")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Restore the files as of this commit").click()
    expect(page.locator(".notice"), "restoring says so").to_contain_text("Restored")
    assert sample.log(1)[0].subject.startswith(f"restore: {dreamt.short}"), "a restore commit"
    assert "Project Lark ships on Friday" not in sample.read_file("memory/MEMORY.md")
    user = sample.read_file("USER.md")
    assert "<script>" not in user, "the restore undoes the edits after the dream"
    assert "Zoe's cat is called Pixel" not in user, "the restore undoes the edit saved above"
