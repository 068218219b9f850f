"""Measure what model-free curation writes into the durable files, on reverie's own set.

Run: .venv/bin/python bench/curation.py [--baseline /work/main] [--seed 29]   (one JSON object)

Each conversation of ``curationset`` (``dev``: eight conversations; ``heldout``: four, only
evaluated at the end; ``realchat``: eleven generated conversations shaped like real chat,
seed 29, see ``curationset/realchat.py``; ``recallchat``: the four chats of ``bench/recall.py
--set chat``, another generator's, scored for chatter and duplicates only, as they carry no
gold facts: ``curationset/recallchat.py``) is written as an OpenAI-style JSON file and
ingested, with no model, into a fresh workspace whose clock stands one day after the
conversation's last session: the same path as ``reverie ingest`` (compaction by the
model-free summariser, then model-free dream). The top-level bullets of SOUL.md, USER.md
and memory/MEMORY.md are then scored:

- **precision**: bullets that match a gold fact / all bullets;
- **recall**: gold facts matched by at least one bullet / all gold facts;
- **chatter share**: bullets with fewer than two content words, or that open like social
  talk (greeting, thanks, praise, agreement, exclamation, laughter, leave-taking), or that are
  a chatter kind (``curationset.judge``: a speaker label, a vocative, encouragement with no
  subject, a request, or only words of a generated chatter line), counted per kind;
- **duplicate lines**: bullets that say (nearly) what an earlier bullet says;
- **superseded stated as current**: stale values (replaced by a later session) still written
  in a bullet outside its ``(since ...; before: ...)`` tag.

Matching rule: a bullet matches a gold fact when every bracketed key term of the fact occurs
in the bullet, case-folded (``curationset.model``). The chatter test here is the bench's own
short list, independent of ``reverie.memory.modelfree.chatter``. With ``--baseline PATH`` the same
measurement also runs against the reverie source tree at PATH (``PATH/src`` first on the
import path), printed as ``before``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from curationset import dev, heldout, realchat, recallchat
from curationset.judge import chatter_kind, duplicates
from curationset.model import Conversation, keys
from reverie import MemoryEngine

FILES = ("SOUL.md", "USER.md", "memory/MEMORY.md")
_BULLET = re.compile(r"^[-*] (\S.*?)\s*$")
_TAG = re.compile(r"\s*\((?:since|before|as of)[^()]*\)\s*$")
_LABEL = re.compile(r"^(?:[A-Za-z][\w ]{0,30}?:\s*)+")
_SOCIAL = re.compile(
    r"^(?:hi|hey|hello|good (?:morning|night)|bye|thanks|thank you|great|awesome|amazing|wow|"
    r"cool|nice|lol|haha|omg|ok|okay|sure|yes|yeah|agreed|sounds good|congrat|i'm so|i'm super|"
    r"i'm off|talk (?:soon|later)|gotta|你好|谢谢|哈哈|好的|太好了|晚安|嗯)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+|\d+")
_CJK = re.compile(r"[\u3400-\u9fff]")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "so",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "from",
        "by",
        "with",
        "about",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "she",
        "they",
        "it",
        "this",
        "that",
        "just",
        "really",
        "very",
        "too",
        "so",
        "much",
        "all",
    ]
)


def content_words(text: str) -> int:
    """Content words of a bullet (CJK: one per two characters)."""
    latin = [w for w in _WORD.findall(_CJK.sub(" ", text.lower())) if w not in _STOP]
    return len(latin) + len(_CJK.findall(text)) // 2


def is_chatter(bullet: str) -> bool:
    """The bench's chatter test (see the module docstring)."""
    body = _LABEL.sub("", _TAG.sub("", bullet))
    return content_words(body) < 2 or _SOCIAL.search(body) is not None


def export(conversation: Conversation) -> list[dict[str, object]]:
    """The conversation as OpenAI-style JSON conversations, one per session."""
    out: list[dict[str, object]] = []
    for number, session in enumerate(conversation.sessions):
        start = datetime.fromisoformat(session.start)
        messages: list[dict[str, object]] = []
        for index, (role, name, text) in enumerate(session.turns):
            stamp = (start + timedelta(minutes=2 * index)).isoformat()
            if role == "tool":
                call = {"id": f"call_{index}", "type": "function"}
                call["function"] = {"name": name or "tool", "arguments": "{}"}  # type: ignore[assignment]
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
                messages[-1]["timestamp"] = stamp
                messages.append({"role": "tool", "tool_call_id": f"call_{index}", "content": text})
            else:
                messages.append({"role": role, "content": text})
                if name:
                    messages[-1]["name"] = name
            messages[-1]["timestamp"] = stamp
        out.append({"id": f"{conversation.id}-{number}", "messages": messages})
    return out


def curate(conversation: Conversation, root: Path) -> list[str]:
    """Ingest one conversation without a model; return the bullets of the three files."""
    source = root / f"{conversation.id}.json"
    source.write_text(json.dumps(export(conversation), ensure_ascii=False), encoding="utf-8")
    last = datetime.fromisoformat(conversation.sessions[-1].start)
    now = last + timedelta(days=1)
    with MemoryEngine.open(root / conversation.id, environ={}, clock=lambda: now) as engine:
        engine.ingest([source])
        workspace = root / conversation.id
    bullets: list[str] = []
    for name in FILES:
        for line in (workspace / name).read_text(encoding="utf-8").splitlines():
            found = _BULLET.match(line)
            if found is not None:
                bullets.append(found[1])
    return bullets


def score(conversations: tuple[Conversation, ...]) -> dict[str, object]:
    """Precision, recall, chatter share and superseded-as-current over ``conversations``."""
    bullets = matched = gold = found = chatter = stale = doubled = 0
    misses: list[str] = []
    extras: list[str] = []
    kinds: dict[str, int] = {}
    noise: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for conversation in conversations:
            original = curate(conversation, Path(tmp))
            written = [b.casefold() for b in original]
            current = [_TAG.sub("", b) for b in written]
            gold_keys = [keys(g) for g in conversation.gold]
            bullets += len(written)
            doubled += duplicates(original, conversation.names)
            for bullet, text in zip(written, original, strict=True):
                good = any(all(k in bullet for k in ks) for ks in gold_keys)
                matched += good
                if not good:
                    extras.append(f"{conversation.id}: {bullet}")
                kind = "short-or-social" if is_chatter(text) else chatter_kind(text, conversation)
                if kind is not None and not (good and kind == "said-chatter"):
                    chatter += 1
                    kinds[kind] = kinds.get(kind, 0) + 1
                    noise.append(f"{conversation.id}: [{kind}] {text}")
            for annotation, ks in zip(conversation.gold, gold_keys, strict=True):
                gold += 1
                if any(all(k in b for k in ks) for b in written):
                    found += 1
                else:
                    misses.append(f"{conversation.id}: {annotation}")
            for annotation in conversation.stale:
                ks = keys(annotation)
                stale += sum(1 for b in current if all(k in b for k in ks))
    return {
        "conversations": len(conversations),
        "gold_facts": gold,
        "bullets": bullets,
        "precision": round(matched / bullets, 3) if bullets else 0.0,
        "recall": round(found / gold, 3) if gold else 0.0,
        "chatter_share": round(chatter / bullets, 3) if bullets else 0.0,
        "chatter_kinds": dict(sorted(kinds.items())),
        "duplicate_lines": doubled,
        "superseded_stated_as_current": stale,
        "chatter_bullets": noise,
        "unmatched_bullets": extras,
        "missed_gold": misses,
    }


_GOLD_ONLY = frozenset(
    {
        "gold_facts",
        "precision",
        "recall",
        "superseded_stated_as_current",
        "unmatched_bullets",
        "missed_gold",
    }
)


def measure(*, details: bool, seed: int = 29) -> dict[str, object]:
    """Every part of the set, with or without the per-bullet lists."""
    result: dict[str, object] = {}
    chat = realchat.CONVERSATIONS if seed == 29 else realchat.generate(seed)
    parts = (
        ("dev", dev.CONVERSATIONS),
        ("heldout", heldout.CONVERSATIONS),
        ("realchat", chat),
        ("recallchat", recallchat.conversations()),
    )
    for part, conversations in parts:
        figures = score(conversations)
        if part == "recallchat":  # no gold facts: chatter and duplicates only
            figures = {k: v for k, v in figures.items() if k not in _GOLD_ONLY}
        if not details:
            figures = {k: v for k, v in figures.items() if not isinstance(v, list)}
        result[part] = figures
    return result


def baseline(path: Path, seed: int) -> object:
    """Run this script against the reverie tree at ``path``; return its figures."""
    env = dict(os.environ, PYTHONPATH=f"{path / 'src'}{os.pathsep}{Path(__file__).parent}")
    done = subprocess.run(
        [sys.executable, __file__, "--no-details", "--seed", str(seed)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)["after"]


def main() -> None:
    """Print the figures as one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", type=Path, help="a reverie source tree to compare with")
    parser.add_argument("--no-details", action="store_true", help="omit per-bullet lists")
    parser.add_argument("--seed", type=int, default=29, help="the realchat generator's seed")
    args = parser.parse_args()
    result: dict[str, object] = {}
    if args.baseline is not None:
        result["before"] = baseline(args.baseline, args.seed)
    result["after"] = measure(details=not args.no_details, seed=args.seed)
    print(json.dumps(result, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
