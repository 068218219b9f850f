from __future__ import annotations

from reverie.core.audit import FileChange
from reverie.core.diff import (
    AuditDiff,
    FileVersions,
    cap_diff,
    commit_body,
    render_diff,
    stat_block,
)


def test_render_counts_and_orders_files_by_path() -> None:
    diff = render_diff(
        [
            FileVersions(path="b.md", old=b"same\nold\n", new=b"same\nnew\nmore\n"),
            FileVersions(path="a.md", old=b"x\n", new=b"x\n"),
            FileVersions(path="a/new.md", old=None, new=b"hello\n"),
        ]
    )
    assert diff.files == (
        FileChange(path="a/new.md", added=1, removed=0),
        FileChange(path="b.md", added=2, removed=1),
    )
    assert diff.diff.startswith("--- /dev/null\n+++ b/a/new.md\n@@ -0,0 +1 @@\n+hello\n")
    assert "--- a/b.md\n+++ b/b.md\n" in diff.diff
    assert " same\n-old\n+new\n+more\n" in diff.diff


def test_a_missing_final_newline_is_marked_like_git() -> None:
    diff = render_diff([FileVersions(path="c", old=b"5", new=b"9")])
    body = diff.diff.split("\n", 2)[2]
    assert body == (
        "@@ -1 +1 @@\n-5\n\\ No newline at end of file\n+9\n\\ No newline at end of file\n"
    )
    assert diff.files == (FileChange(path="c", added=1, removed=1),)


def test_only_newlines_split_lines() -> None:
    diff = render_diff([FileVersions(path="f", old=None, new="a\rb\u2028c\n".encode())])
    assert diff.files == (FileChange(path="f", added=1, removed=0),)


def test_deleting_a_file_and_adding_an_empty_one() -> None:
    diff = render_diff(
        [
            FileVersions(path="gone", old=b"a\nb\n", new=None),
            FileVersions(path="empty", old=None, new=b""),
        ]
    )
    assert diff.files == (
        FileChange(path="empty", added=0, removed=0),
        FileChange(path="gone", added=0, removed=2),
    )
    assert "--- /dev/null\n+++ b/empty\n--- a/gone\n+++ /dev/null\n" in diff.diff


def test_invalid_utf8_is_rendered_not_raised() -> None:
    diff = render_diff([FileVersions(path="bin", old=b"\xff\xfe\n", new=b"ok\n")])
    assert diff.files == (FileChange(path="bin", added=1, removed=1),)


def test_stat_block_aligns_paths_and_totals() -> None:
    block = stat_block(
        [
            FileChange(path="SOUL.md", added=2, removed=1),
            FileChange(path="memory/x", added=0, removed=4),
        ]
    )
    assert block == "SOUL.md  | +2 -1\nmemory/x | +0 -4\n2 files changed, +2 -5"
    assert stat_block([FileChange(path="a", added=1, removed=0)]).endswith("1 file changed, +1 -0")
    assert stat_block([]) == "no file changed"


def test_cap_keeps_whole_lines_and_counts_the_rest() -> None:
    diff = "".join(f"+line {i:03}\n" for i in range(100))  # 10 chars per line
    capped = cap_diff(diff, cap=95)
    assert capped.split("\n")[:9] == [f"+line {i:03}" for i in range(9)]
    assert capped.endswith("[... 91 more diff lines not shown]\n")
    assert cap_diff(diff, cap=len(diff)) == diff


def test_commit_body_is_stat_block_then_diff() -> None:
    diff = render_diff([FileVersions(path="a", old=b"1\n", new=b"2\n")])
    assert commit_body(diff) == "a | +1 -1\n1 file changed, +1 -1\n\n" + diff.diff
    assert commit_body(AuditDiff(files=(), diff="")) == "no file changed\n"
    assert not AuditDiff(files=(), diff="").changed
