"""The changes a person makes through ``MemoryEngine`` that reach past one process: forget, redact.

Restore, forget and edit make one commit each, under dream's lock, so a person's change and a
dream never interleave; restore and edit are the engine's calls of ``reverie.memory.dream.edit``
as they are. What is here also keeps the engine's search index and dense vectors in step with
the change: ``forget`` (``reverie.memory.provenance``) and ``redact_sessions``, which rewrites
the session messages that still hold a secret (written before redaction ran on append).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reverie.engine.parts import Parts
    from reverie.memory.provenance.forget import ForgetReport
    from reverie.memory.session_secrets import SessionsRedacted


def forget(parts: Parts, text: str, *, purge: bool, confirm_broad: bool) -> ForgetReport:
    """Remove a fact, what it came from and what it led to, as one audit commit.

    With ``purge``, also rewrite the audit history and scrub every file (or row) of the
    workspace so that no byte of ``text`` is left (see ``reverie.memory.provenance``). Runs on a
    folder and on a database workspace alike. A text too short to name a fact, or a plan that
    takes more than one fact (``ForgetPlan.broad``: a text with no word of its own, found inside
    longer words, or taking many lines or messages) is refused with an ``InputError`` unless
    ``confirm_broad``: a person's choice after reading the plan, which no agent tool offers.
    """
    from reverie.memory.provenance.forget import forget as run  # noqa: PLC0415

    report = run(parts.stores, text, purge=purge, index=parts.index, confirm_broad=confirm_broad)
    if purge and parts.dense is not None:  # the purge deleted vectors (file or rows): reload
        parts.dense.store.close()
    return report


def redact_sessions(parts: Parts) -> SessionsRedacted:
    """Rewrite, redacted, every session message that still holds a secret.

    Messages written before redaction ran on append (``doctor`` names them). Each keeps its
    place, role, ids and time; the search index is refreshed and the vectors (a cache holding a
    vector and a hash of each item's exact text) are computed again.
    """
    from reverie.memory.session_secrets import find, rewrite  # noqa: PLC0415

    sessions = parts.stores.sessions
    done = rewrite(sessions, find(sessions))
    if done.sessions:
        parts.index.refresh()
        if parts.dense is not None:
            parts.dense.store.drop()
            parts.dense.catch_up_all()
    return done
