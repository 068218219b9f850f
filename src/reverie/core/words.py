"""Words: the stop words and stems that search, recall, curation and provenance share.

One toolkit with ``core.text`` (scripts, segmentation, index terms): every list of words too
common to count and every stemmer of reverie is here, named by what it is for. They share
``FUNCTION_WORDS`` (the English words every purpose drops: they say how, not what) and
differ where the purpose does, on purpose:

- ``QUERY_STOP_WORDS`` (recall and search, ``memory.recall.terms``): a question's scaffolding
  too ("tell", "remember", "know", "thing", "going", greetings), which says that someone
  asks, not what about; a question must match the content it asks about.
- ``FACT_STOP_WORDS`` (curation, ``memory.modelfree``: how alike two facts are, and whether
  a sentence is chatter): correction cues ("actually", "meant", "instead", "sorry") and
  speaker labels ("user", "decided") that a restated fact adds without changing it; its
  words keep their apostrophes, so contractions are listed whole. It keeps "like", "want",
  "know": "likes tea" is a fact.
- ``ATTRIBUTION_STOP_WORDS`` (provenance, ``memory.provenance.similarity``): speaker labels
  and the time words a durable line adds to what its source said ("still", "now", "since",
  "after", "before"); small, because a line is short and every content word of it counts.

Chinese has two lists for the same reasons: ``QUERY_CJK_STOP`` drops question words and
pronouns (什么, 谁, 我, 你) as well as particles; ``FACT_CJK_STOP`` only particles (的, 了, 吗).

Stems (none is a linguistic stemmer; each is the smallest rule its caller measured to pay):
``prefix_stem`` (recall: the prefix a word must start with to hold a query term),
``plural_stem`` (curation: facts compared as sets), ``suffix_stem`` (provenance: a line meets
its source across "lives" / "lived" / "living"), ``verb_stem`` (curation's slots: "runs",
"running" and "run" are one habit). This module does no I/O.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


FUNCTION_WORDS = _words(
    """
    a about also an and are as at be been but by can could did do does for from had has have
    he her his i in into is it its just me my no not of on or our really she so than that the
    their them then there they this to too us very was we were what when where which who will
    with would you your
    """
)
"""English words every purpose drops: they say how something is said, not what."""

QUERY_STOP_WORDS = FUNCTION_WORDS | _words(
    """
    above after again against all am any aren because before being below between both didn
    doesn doing don down during each else ever few further get go going got having here hers
    herself hey hi him himself how if isn itself kind know let like ll mean might more most
    much must myself nor now off oh ok okay once one ones only other ours ourselves out over
    own re remember s said same say should some sort such t tell theirs themselves these thing
    things think those through under until up ve want wanted wasn went weren whats while whom
    why yes yours yourself yourselves
    """
)
"""Words too common to say what a question is about (recall's and search's query terms)."""

FACT_STOP_WORDS = FUNCTION_WORDS | _words(
    """
    actually agreed am assistant being correction decided decision didn't doesn't don't done
    here how i'd i'll i'm i've instead it's let's lets may mean meant might mine must ok okay
    please rather shall should sorry that's these those user whom why yes
    """
)
"""Words that do not change what a fact says (comparing facts, counting content words)."""

ATTRIBUTION_STOP_WORDS = FUNCTION_WORDS | _words(
    "after assistant before if now since still up user"
)
"""Words a durable line and its sources need not share (provenance's support)."""

QUERY_CJK_STOP = frozenset(
    "的了是吗呢吧啊么什在有我你他她它们这那个和与就也都还要会能说过很嗎呀哦哪里谁几怎样"
)
"""Chinese characters that carry a question's grammar: a bigram made only of them is dropped."""

FACT_CJK_STOP = frozenset("的了吗呢吧啊呀哦嗯")
"""Chinese particles: left out when two facts' character pairs are compared."""

_SUFFIXES = ("ing", "es", "ed", "s")


def prefix_stem(term: str) -> str:
    """All but a term's last three letters from six letters on (ASCII letters only), else it.

    A word holds the term when it starts with this ("allergic" / "allergies").
    """
    return term[: len(term) - 3] if len(term) >= 6 and term.isalpha() and term.isascii() else term


def plural_stem(word: str) -> str:
    """A word without a plural ``s`` (longer than three letters, not ``ss``)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def suffix_stem(word: str) -> str:
    """A word without its first matching ending of -ing, -es, -ed, -s (at least 4 letters left)."""
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def verb_stem(verb: str) -> str:
    """The stem of a verb: "running", "runs" and "run" give "run"."""
    if verb.endswith("ing") and len(verb) > 5:
        verb = verb[:-3]
        return verb[:-1] if len(verb) > 2 and verb[-1] == verb[-2] else verb
    return verb[:-1] if verb.endswith("s") and not verb.endswith("ss") else verb
