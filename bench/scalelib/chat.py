"""Generated text that reads like real chat with an assistant, fast enough to make 1M items.

Nothing here is taken from a real conversation or a public benchmark: every template and word
list (``scalelib.words``) was written for this bench. A message is drawn by role and kind,
with weights like a real chat log:

- the user: chatter (``ok``, ``thanks!``, ``lol``, short reactions: about a third of what a
  person types), questions about work and life, statements of plans and facts, pasted
  material (a traceback, a shell command, a URL, a path, an error line), and one message in
  about twelve in Chinese;
- the assistant: short acknowledgements, explanations of two to six sentences, a code block,
  a numbered plan, now and then Chinese;
- history entries: compaction-style summaries of one to three sentences (one in twelve in
  Chinese).

Slots (``{n}`` a noun, ``{v}`` a verb, ``{t}`` a tool, ``{p}`` a person, ``{d}`` a day, ``{l}``
a place, ``{r}`` a rare name, ``{s}`` a suggested step, ``{k}`` a number) are filled from the
word lists and from a Zipfian tail of about 24,000 made-up names (projects, people, product
codes; the name of rank r has weight 1/r^1.1), so the vocabulary keeps growing with the
corpus as real text does (Heaps' law): a few words are everywhere and most are rare. The same
seed gives the same text; about 17 µs per message on this machine.
"""

from __future__ import annotations

import itertools
import random
import re

from scalelib import words

QUESTIONS = (
    "how do I {v} the {n} in {t}?",
    "can you help me {v} my {n}",
    "what's the best way to {v} {r} before {d}?",
    "is {k} too much for a {n} in {l}",
    "why does {t} keep failing on {r}",
    "should I tell {p} about the {n}?",
)
STATEMENTS = (
    "I'm meeting {p} in {l} {d}",
    "{p} says the {n} is due {d}",
    "my {n} for {r} finally works!! took me {k} hours",
    "we moved the {n} to {d}, {r} can't make it",
    "fyi I switched from {t} to {t} for {r}",
    "the {n} cost {k} in the end, ugh",
)
PASTED = (
    "Traceback (most recent call last):\n  File \"{r}.py\", line {k}\nKeyError: '{r}'",
    "$ {t} {v} --{r} ./{r}",
    "https://{r}.example.org/{n}/{k}",
    "/home/me/projects/{r}/src/{r}.py",
    "ERROR {k} {r}: connection reset by peer",
)
EXPLANATIONS = (
    "The simplest way is {s}.",
    "In {t} you can {v} the {n} directly.",
    "If {r} is still slow, check the {n} first.",
    "That usually happens when the {n} is out of date.",
    "I'd keep the {n} for {d} and move the rest.",
    "A budget of about {k} is realistic for {l}.",
    "You could also ask {p} to {v} it.",
    "Here is a summary of {r}: {s}, then {s}.",
    "Let me know if you want a shorter version.",
)
STEPS = (
    "running {t} with the --{r} flag",
    "splitting the {n} into {k} parts",
    "asking {p} before {d}",
    "a checklist for the {n}",
    "moving {r} to {l}",
)
ENTRIES = (
    "The user asked how to {v} the {n} for {r} in {t}; the assistant suggested {s}.",
    "{p} is going to {l} {d} for the {n}.",
    "Decided: {r} {n} moves to {d}, budget {k} EUR.",
)
ASKED = (
    "what did we decide about the {n} for {r}?",
    "When is the {n} with {p}?",
    "remind me how I set up {t} for {r}",
    "what was the {r} {n} thing again",
    "did I tell you about {p} and {r}?",
)
CODE = (
    "Try this:\n```python\ndef {r}({n}):\n    return {r}.{v}({k})\n```\nIt does the {n} in one go."
)
_SLOT = re.compile(r"\{([nvtpdlrsk])\}")


class ChatText:
    """Seeded generator of chat messages and history entries (see the module docstring)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        names = random.Random(1)
        made = {
            "".join(names.choice(words.SYLLABLES) for _ in range(names.randint(2, 4)))
            for _ in range(45_000)
        }
        self.tail = sorted(made)
        names.shuffle(self.tail)
        ranks = range(1, len(self.tail) + 1)
        self.tail_weights = list(itertools.accumulate(1 / r**1.1 for r in ranks))
        lists = {"n": words.NOUNS, "v": words.VERBS, "t": words.TOOLS, "p": words.PEOPLE}
        lists |= {"d": words.DAYS, "l": words.PLACES}
        self._lists = lists

    def rare(self) -> str:
        """One made-up name from the Zipfian tail, capitalised."""
        return self.rng.choices(self.tail, cum_weights=self.tail_weights)[0].capitalize()

    def fill(self, template: str) -> str:
        """``template`` with each slot filled afresh."""
        return _SLOT.sub(lambda slot: self._slot(slot.group(1)), template)

    def user(self) -> str:
        """One message a person would type."""
        roll = self.rng.random()
        if roll < 0.32:
            return self.rng.choice(words.CHATTER)
        if roll < 0.92:
            table = QUESTIONS if roll < 0.60 else STATEMENTS if roll < 0.84 else PASTED
            return self.fill(self.rng.choice(table))
        return self._chinese()

    def assistant(self) -> str:
        """One answer an assistant would give."""
        roll, rng = self.rng.random(), self.rng
        if roll < 0.12:
            return rng.choice(words.ACKS)
        if roll < 0.82:
            return " ".join(self.fill(t) for t in rng.sample(EXPLANATIONS, rng.randint(2, 6)))
        if roll < 0.91:
            return self.fill(CODE)
        if roll < 0.97:
            steps = [f"{i}. {self.fill('{s}').capitalize()}" for i in range(1, rng.randint(3, 6))]
            return self.fill("Plan for the {n}:\n") + "\n".join(steps)
        return self._chinese()

    def entry(self) -> str:
        """A compaction-style summary of a stretch of conversation."""
        rng = self.rng
        if rng.random() < 0.08:
            return f"用户提到{rng.choice(words.CHINESE)}，并且{rng.choice(words.CHINESE)}。"
        return " ".join(self.fill(t) for t in rng.sample(ENTRIES, rng.randint(1, 3)))

    def question(self) -> str:
        """A question about the past, as a user asks one of their memory."""
        if self.rng.random() < 0.1:
            return f"上次说的{self.rng.choice(words.CHINESE)}怎么样了"
        return self.fill(self.rng.choice(ASKED))

    def _slot(self, name: str) -> str:
        if name == "r":
            return self.rare()
        if name == "k":
            return str(self.rng.randint(2, 4000))
        if name == "s":
            return self.fill(self.rng.choice(STEPS))
        return self.rng.choice(self._lists[name])

    def _chinese(self) -> str:
        return "，".join(self.rng.sample(words.CHINESE, self.rng.randint(1, 3)))
