"""Patch application: exact hunks, wrong line numbers, several hunks, newlines, and failures."""

from __future__ import annotations

import pytest

from reverie.errors import PatchError
from reverie.memory.dream.patch import apply_patch, parse_patch

TEXT = "".join(f"line {n}\n" for n in range(1, 21))


def test_a_well_formed_hunk_applies() -> None:
    patch = "--- a/x\n+++ b/x\n@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE THREE\n line 4\n"
    assert apply_patch(TEXT, patch) == TEXT.replace("line 3\n", "LINE THREE\n")


def test_a_wrong_line_number_is_tolerated_when_the_context_is_unique() -> None:
    patch = "@@ -15,3 +15,3 @@\n line 5\n-line 6\n+six\n line 7\n"
    assert apply_patch(TEXT, patch) == TEXT.replace("line 6\n", "six\n")


def test_bare_headers_and_missing_counts_are_accepted() -> None:
    assert apply_patch(TEXT, "@@\n-line 9\n+nine\n") == TEXT.replace("line 9\n", "nine\n")
    assert apply_patch(TEXT, "@@ -9 +9 @@\n-line 9\n+nine\n") == TEXT.replace("line 9\n", "nine\n")


def test_several_hunks_apply_in_order_with_shifting_line_numbers() -> None:
    patch = (
        "@@ -1,2 +1,4 @@\n line 1\n+new a\n+new b\n line 2\n"
        "@@ -10,3 +12,2 @@\n line 10\n-line 11\n line 12\n"
        "@@ -19,2 +20,2 @@\n line 19\n-line 20\n+twenty\n"
    )
    expected = (
        TEXT.replace("line 1\n", "line 1\nnew a\nnew b\n", 1)
        .replace("line 11\n", "")
        .replace("line 20\n", "twenty\n")
    )
    assert apply_patch(TEXT, patch) == expected


def test_an_ambiguous_hunk_is_refused_unless_the_line_number_picks_one() -> None:
    text = "a\nx\nb\na\nx\nb\n"
    with pytest.raises(PatchError, match="matches 2 places") as caught:
        apply_patch(text, "@@\n a\n-x\n+y\n")
    assert caught.value.hunk == 1
    with pytest.raises(PatchError, match=r"file lines 1, 4"):
        apply_patch(text, "@@ -3,2 +3,2 @@\n a\n-x\n+y\n")
    assert apply_patch(text, "@@ -4,2 +4,2 @@\n a\n-x\n+y\n") == "a\nx\nb\na\ny\nb\n"


def test_a_non_matching_hunk_names_the_hunk_and_the_line() -> None:
    patch = (
        "@@ -1,2 +1,2 @@\n line 1\n-line 2\n+two\n@@ -5,3 +5,3 @@\n line 5\n-line 6 typo\n+six\n"
    )
    with pytest.raises(PatchError) as caught:
        apply_patch(TEXT, patch)
    message = str(caught.value)
    assert "hunk 2" in message
    assert "patch line 7" in message
    assert "'line 6 typo'" in message
    assert "file line 6 is 'line 6'" in message
    assert caught.value.line == 7


def test_a_hunk_whose_first_line_is_nowhere_says_so() -> None:
    with pytest.raises(PatchError, match=r"first old line 'nope' .* is not in the file"):
        apply_patch(TEXT, "@@ -1 +1 @@\n-nope\n+yes\n")


def test_hunks_out_of_file_order_are_refused() -> None:
    patch = "@@ -10 +10 @@\n-line 10\n+ten\n@@ -2 +2 @@\n-line 2\n+two\n"
    with pytest.raises(PatchError, match=r"hunk 2 .* not in the file after line"):
        apply_patch(TEXT, patch)


def test_trailing_whitespace_differences_are_tolerated_and_context_kept() -> None:
    text = "alpha  \nbeta\ngamma\n"
    assert apply_patch(text, "@@\n alpha\n-beta\n+BETA\n") == "alpha  \nBETA\ngamma\n"


def test_an_empty_line_inside_a_hunk_counts_as_empty_context() -> None:
    text = "a\n\nb\n"
    assert apply_patch(text, "@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n") == "a\n\nc\n"


def test_pure_insertions_need_a_usable_line_number() -> None:
    assert apply_patch("a\nb\n", "@@ -1,0 +2,1 @@\n+between\n") == "a\nbetween\nb\n"
    assert apply_patch("", "@@ -0,0 +1,2 @@\n+first\n+second\n") == "first\nsecond\n"
    with pytest.raises(PatchError, match="only adds lines"):
        apply_patch("a\n", "@@\n+x\n")
    with pytest.raises(PatchError, match="only adds lines"):
        apply_patch("a\n", "@@ -9,0 +9,1 @@\n+x\n")


def test_no_newline_markers_are_honoured() -> None:
    assert apply_patch("a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n") == (
        "a\nc\n"
    )
    assert apply_patch("a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n") == (
        "a\nc"
    )
    both = "@@ -1,2 +1,2 @@\n-a\n+z\n b\n\\ No newline at end of file\n"
    assert apply_patch("a\nb", both) == "z\nb"


def test_a_missing_final_newline_is_kept_when_the_patch_does_not_mention_it() -> None:
    assert apply_patch("a\nb", "@@\n-a\n+z\n b\n") == "z\nb"
    assert apply_patch("a\nb", "@@\n a\n-b\n+c\n") == "a\nc"


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ("", "has no hunk"),
        ("just words\n", "has no hunk"),
        ("hello\n@@\n-a\n+b\n", "patch line 1 .* before the first"),
        ("@@\n-line 1\n*bad\n", r"hunk 1, patch line 3 \('\*bad'\)"),
        ("@@\n\\ No newline at end of file\n", "must start with"),
        ("@@ -1,1 +1,1 @@\n@@\n-line 1\n", "hunk 1 .* has no lines"),
        (
            "@@\n-line 1\n+one\n--- a/other\n+++ b/other\n@@\n-x\n+y\n",
            "starts a second file",
        ),
    ],
)
def test_malformed_patches_are_refused(patch: str, message: str) -> None:
    with pytest.raises(PatchError, match=message):
        apply_patch(TEXT, patch)


def test_a_removed_line_that_looks_like_a_header_is_still_a_removed_line() -> None:
    text = "-- sig\nbody\n"
    assert apply_patch(text, "@@\n--- sig\n+-- signature\n body\n") == "-- signature\nbody\n"


def test_parse_patch_reports_hunk_numbers_and_positions() -> None:
    hunks = parse_patch("--- a\n+++ b\n@@ -3,1 +3,1 @@\n-x\n+y\n@@\n z\n")
    assert [h.number for h in hunks] == [1, 2]
    assert [h.patch_line for h in hunks] == [3, 6]
    assert hunks[0].old_start == 3
    assert hunks[1].old_start is None
    assert hunks[0].old == ["x"]
    assert hunks[0].new_length == 1


def test_a_mismatch_at_the_end_of_the_file_says_so() -> None:
    with pytest.raises(PatchError, match="the end of the file"):
        apply_patch("a\nb\n", "@@ -1,3 +1,3 @@\n a\n b\n-c\n+d\n")
