"""One definition of the scripts written without spaces (``reverie.core.text.CJK``), used alike.

Search, recall, curation and provenance once each spelled their own ranges (four different
ones), so Japanese kana were characters to one and words to another, and Korean was split
into characters by attribution only. Now each splits Chinese and Japanese the same way, and
Korean (written with spaces) is words everywhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import reverie
from reverie.core.text import CJK_RUN, cjk_pairs
from reverie.memory.modelfree.similarity import fact_tokens
from reverie.memory.provenance.similarity import content_tokens
from reverie.memory.recall.terms import QueryTerms

JAPANESE = "コーヒーが大好き"
KOREAN = "서울에 살아요"


def test_japanese_is_split_into_characters_by_every_reader() -> None:
    assert CJK_RUN.fullmatch(JAPANESE)
    assert "コー" in cjk_pairs(JAPANESE).split()  # search
    assert "コー" in QueryTerms.of(JAPANESE).terms  # recall
    assert "コー" in fact_tokens(JAPANESE)  # curation
    assert "コ" in content_tokens(JAPANESE)  # provenance


def test_korean_is_words_for_every_reader() -> None:
    assert CJK_RUN.search(KOREAN) is None
    assert cjk_pairs(KOREAN) == ""
    assert "서울에" in QueryTerms.of(KOREAN).terms
    assert "서울에" in fact_tokens(KOREAN)
    assert "서울에" in content_tokens(KOREAN)
    assert "서" not in content_tokens(KOREAN)


def test_the_scripts_are_spelled_once() -> None:
    source = Path(reverie.__file__).parent
    spelled = re.compile(r"\\u(?:3040|3400|4e00|9fff|ac00)")
    found = [
        str(path.relative_to(source))
        for path in sorted(source.rglob("*.py"))
        if spelled.search(path.read_text(encoding="utf-8"))
    ]
    assert found == ["core/text.py"]
