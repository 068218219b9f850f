"""Isolation, as a property: nothing one principal said ever reaches another principal.

Generated scenarios (``tests.owners.isolation``): 2-4 principals tell the engine private
facts, their messages interleaved through one ``EnginePool`` (capacity 2, so engines are
closed and opened again between messages); then ``Maintenance`` compacts every idle session
and each principal dreams. Every read a principal can make is then scanned for any other
principal's tokens: its prompts, recall, search (queried with the other principals' very
words), history, sessions, durable files, status, audit log, the errors of reaching for
another principal's files or commits, its exports (``Home.export_folder``, the JSON
``export_document``) and, in a folder home, every byte of its folder (git objects unpacked).

One test per backend (a folder home; a database home on the real PostgreSQL test cluster),
each model-free and with the shipped ``ScriptedProvider`` as an echoing memory model; with
the model, no request the model receives may hold two principals' tokens. A positive check
keeps the test honest: each principal's own name token is found in its own search.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given

from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import EnginePool, FolderHome, Home
from reverie.engine.owners.export import export_document
from reverie.errors import ReverieError
from tests.owners.isolation import (
    SESSIONS,
    EchoModel,
    Facts,
    engine_pool,
    examples,
    folder_text,
    maintain,
    opened_home,
    scenarios,
)

pytestmark = pytest.mark.slow


def converse(pool: EnginePool, ids: list[str], facts: Facts) -> None:
    """Each fact as one exchange of its principal, in arrival order, with a prompt after it."""
    for fact in facts.arrivals:
        with pool.lease(ids[fact.principal], create=True) as engine:
            engine.record(
                fact.session,
                [
                    {"role": "user", "content": fact.text},
                    {"role": "assistant", "content": "Noted, I will keep that in mind."},
                ],
            )
            shown = engine.prompt(fact.session, "What do you know about me?")
        assert facts.leaks(repr(shown.messages), fact.principal) == set()


def _errors(engine: MemoryEngine, other: str, other_commit: str | None) -> str:
    """The messages of reaching for another principal's files and commits."""
    found = []
    attempts: list[Callable[[], object]] = [
        lambda: engine.read_file(f"../../{other}/memory/MEMORY.md"),
        lambda: engine.read_file(f"../{other}/USER.md"),
    ]
    if other_commit is not None:
        attempts.append(lambda: engine.show(other_commit))
    for attempt in attempts:
        try:
            found.append(repr(attempt()))
        except (ReverieError, ValueError, KeyError) as exc:
            found.append(str(exc))
    return "\n".join(found)


def reads(
    engine: MemoryEngine, facts: Facts, number: int, other: str, other_commit: str | None
) -> list[str]:
    """Every text ``engine`` shows principal ``number``, searched with every principal's words.

    The prompt is asked with the principal's own words only (its user text is in it).
    """
    everything = " ".join(facts.tokens())
    own = " ".join(facts.tokens(number))
    shown = [repr(engine.prompt(key, own).messages) for key in SESSIONS]
    recalled = [engine.recall(query) for query in [everything, *facts.tokens()]]
    # What was recalled, not the query nor the query words it matched (``why``)
    shown += [repr([(i.ref, i.text) for i in result.items]) + result.text for result in recalled]
    shown += [repr(engine.search(token, limit=50)) for token in facts.tokens()]
    shown.append(repr(engine.search(everything, limit=50)))
    shown.append(repr(engine.history()))
    shown.append(repr([engine.session(info.key) for info in engine.sessions()]))
    shown += [engine.read_file(path) for path in ("SOUL.md", "USER.md", "memory/MEMORY.md")]
    shown.append(repr(engine.status()))
    shown.append(repr([engine.show(commit.sha) for commit in engine.log(50)]))
    shown.append(_errors(engine, other, other_commit))
    return shown


def export_text(home: Home, engine: MemoryEngine, principal: str, target: Path) -> str:
    """The principal's exports: a folder (every file's text) and the JSON document."""
    home.export_folder(principal, target)
    document = json.dumps(export_document(engine, principal), ensure_ascii=False)
    return document + "\n".join(text for _, text in folder_text(target))


def check_isolation(home: Home, ids: list[str], facts: Facts, root: Path) -> None:
    with engine_pool(home) as pool:
        commits: dict[str, str | None] = {}
        for principal in ids:
            with pool.lease(principal) as engine:
                last = engine.log(1)
                commits[principal] = last[0].sha if last else None
        for number, principal in enumerate(ids):
            other = ids[(number + 1) % len(ids)]
            with pool.lease(principal) as engine:
                shown = reads(engine, facts, number, other, commits[other])
                own = facts.tokens(number)[0]
                assert own in repr(engine.search(own)).lower()  # the scan sees real data
                exported = export_text(home, engine, principal, root / f"export-{number}")
            for text in shown:
                assert facts.leaks(text, number) == set(), text
            assert facts.leaks(exported, number) == set()
            if isinstance(home, FolderHome):
                for path, text in folder_text(home.folder(principal)):
                    assert facts.leaks(text, number) == set(), path


def run_scenario(kind: str, facts: Facts, pg_url: str | None, *, with_model: bool) -> None:
    model = EchoModel(facts) if with_model else None
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        with opened_home(kind, facts, root, pg_url, model=model) as (home, ids, clock):
            with engine_pool(home) as pool:
                converse(pool, ids, facts)
                maintain(pool, ids, clock)
            check_isolation(home, ids, facts, root)
    if model is not None:
        assert model.mixed == []
        assert len(model.provider.requests) > 0


@pytest.mark.parametrize("with_model", [False, True], ids=["model-free", "scripted-model"])
@examples(3)
@given(facts=scenarios())
def test_no_principal_sees_another_principals_facts_in_a_folder_home(
    facts: Facts, with_model: bool
) -> None:
    run_scenario("folder", facts, None, with_model=with_model)


@pytest.mark.parametrize("with_model", [False, True], ids=["model-free", "scripted-model"])
@examples(2)
@given(facts=scenarios())
def test_no_principal_sees_another_principals_facts_in_a_database_home(
    facts: Facts, with_model: bool, pg_url: str
) -> None:
    run_scenario("postgres", facts, pg_url, with_model=with_model)
