"""Shipped-parts seeding for the owners tests: a principal's memory holding one unique fact.

``plant`` puts the fact everywhere a workspace keeps text: two session messages, a history
entry (a model-free compaction), a person's edit of USER.md (an audit commit: git objects on a
folder), the search index, and a model-free dream's work, so a purge that misses any place
leaves the fact behind.
"""

from __future__ import annotations

import secrets

from reverie.engine.facade import MemoryEngine


def unique_fact() -> str:
    """A fact no other test writes: a made-up word that tokenises as one."""
    return f"zorblat{secrets.token_hex(6)}"


def plant(engine: MemoryEngine, fact: str) -> None:
    """Put ``fact`` in every store of ``engine``'s workspace."""
    engine.record(
        "tg:chat",
        [
            {"role": "user", "content": f"My locker code is {fact}, remember it."},
            {"role": "assistant", "content": f"Noted: {fact}."},
        ],
    )
    engine.record(
        "tg:chat",
        [
            {"role": "user", "content": f"And I live at {fact} Street."},
            {"role": "assistant", "content": "Noted."},
        ],
    )
    engine.compact("tg:chat")
    engine.edit_file("USER.md", f"# User\n\nLocker code: {fact}\n", author="test")
    assert engine.search(fact)
    engine.record("tg:later", [{"role": "user", "content": f"Is {fact} still my code?"}])
