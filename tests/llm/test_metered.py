"""The one metered model path: timing, tokens, calibration and one ledger line per call."""

from __future__ import annotations

import itertools
from pathlib import Path

from reverie import ChatReply, ChatRequest, MemoryEngine, Message, ScriptedProvider
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.core.ledger import LedgerRecord
from reverie.core.token_estimate import EstimatingCounter, TokenCounter
from reverie.errors import ModelHTTPError, ModelTimeoutError
from reverie.llm.metered import Answered, CallFailed, MeteredModel
from reverie.llm.provider import Usage
from reverie.llm.tokens import CalibratedCounter, count_request
from reverie.storage.folder.workspace import Workspace

REQUEST = ChatRequest(messages=(Message(role="user", content="what did we decide about tea?"),))


def _metered(
    workspace: Workspace, provider: ScriptedProvider, counter: TokenCounter
) -> MeteredModel:
    return MeteredModel(
        provider,
        job="compaction",
        counter=counter,
        log=workspace.ledger,
        clock=workspace.clock,
        label="memory-model",
    )


def _records(workspace: Workspace) -> list[LedgerRecord]:
    return [record for record in workspace.ledger.records() if record is not None]


def test_a_reported_usage_is_billed_calibrates_the_counter_and_keeps_the_estimate(
    workspace: Workspace,
) -> None:
    counter = CalibratedCounter(EstimatingCounter())
    estimate = count_request(REQUEST, counter.base)
    provider = ScriptedProvider().reply(
        "green", usage=Usage(prompt_tokens=estimate * 2, completion_tokens=7)
    )
    result = _metered(workspace, provider, counter).complete(REQUEST, session_key="cli:a")
    assert isinstance(result, Answered)
    assert (result.tokens_in, result.tokens_out) == (estimate * 2, 7)
    assert counter.observations == 1
    assert counter.ratio == 2.0
    [record] = _records(workspace)
    assert (record.job, record.outcome, record.model) == ("compaction", "ok", "memory-model")
    assert (record.tokens_in, record.tokens_out, record.estimated_in) == (estimate * 2, 7, estimate)
    assert record.session_key == "cli:a"
    assert record.duration_ms >= 0


def test_without_reported_usage_the_estimate_stands_and_nothing_is_calibrated(
    workspace: Workspace,
) -> None:
    counter = CalibratedCounter(EstimatingCounter())
    provider = ScriptedProvider(auto_usage=False).reply("a reply of a few words")
    result = _metered(workspace, provider, counter).complete(REQUEST)
    assert isinstance(result, Answered)
    assert result.tokens_in == count_request(REQUEST, counter)
    assert result.tokens_out == counter.text("a reply of a few words")
    assert counter.observations == 0
    [record] = _records(workspace)
    assert record.tokens_in == record.estimated_in


def test_a_provider_error_comes_back_as_a_failure_and_is_written_down(
    workspace: Workspace,
) -> None:
    provider = ScriptedProvider().fail(ModelTimeoutError("no answer in 30s"))
    result = _metered(workspace, provider, EstimatingCounter()).complete(REQUEST)
    assert isinstance(result, CallFailed)
    assert result.reason == "ModelTimeoutError: no answer in 30s"
    assert result.tokens_in == count_request(REQUEST, EstimatingCounter())  # may be billed
    [record] = _records(workspace)
    assert (record.outcome, record.reason) == ("error", result.reason)


def test_the_callers_judgement_is_the_outcome_and_an_unnamed_model_takes_the_replys_name(
    workspace: Workspace,
) -> None:
    provider = ScriptedProvider(model="served-name").reply("", finish_reason="length")
    metered = MeteredModel(
        provider,
        job="dream",
        counter=EstimatingCounter(),
        log=workspace.ledger,
        clock=workspace.clock,
    )
    metered.complete(REQUEST, judge=lambda reply: ("cut", f"finish {reply.finish_reason}"))
    [record] = _records(workspace)
    assert (record.job, record.outcome, record.reason) == ("dream", "cut", "finish length")
    assert record.model == "served-name"


def test_a_ledger_line_written_before_estimates_were_kept_still_reads(
    workspace: Workspace,
) -> None:
    line = (
        b'{"time": "2026-11-30T12:00:00+00:00", "job": "dream", "session_key": null, '
        b'"model": "m", "tokens_in": 5, "tokens_out": 1, "duration_ms": 2.0, '
        b'"outcome": "final", "reason": null}\n'
    )
    workspace.ledger.path.write_bytes(line)
    [record] = _records(workspace)
    assert record.estimated_in is None
    assert LedgerRecord.from_line(record.to_line()) == record


def _engine(tmp_path: Path, provider: ScriptedProvider) -> MemoryEngine:
    config = Config(model=ModelConfig(model="chat", context_window=4_000, max_output_tokens=500))
    return MemoryEngine.open(tmp_path / "ws", config, provider=provider, environ={}, dense="off")


def test_compaction_through_the_engine_calibrates_its_counter_and_writes_one_line_per_call(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider(*itertools.repeat(ChatReply(text="- [durable] tea is green"), 20))
    with _engine(tmp_path, provider) as memory:
        memory.record("cli:a", [{"role": "user", "content": "we drink green tea " * 40}])
        memory.record("cli:a", [{"role": "assistant", "content": "noted " * 40}])
        result = memory.compact("cli:a")
        assert result.outcome == "summarised"
        assert isinstance(memory.counter, CalibratedCounter)
        assert memory.counter.observations == len(provider.requests) >= 1
        records = _records(Workspace.open(tmp_path / "ws", read_only=True))
        assert len(records) == len(provider.requests)
        assert {r.job for r in records} == {"compaction"}
        assert all(r.estimated_in is not None for r in records)


def test_a_provider_error_mid_compaction_keeps_the_raw_messages_and_the_ledger_says_so(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider().fail(ModelHTTPError("upstream down", status=502, body=""))
    with _engine(tmp_path, provider) as memory:
        memory.record("cli:b", [{"role": "user", "content": "I moved to Porto in May."}])
        result = memory.compact("cli:b")
        assert result.outcome == "raw_fallback"
        [entry] = memory.history()
        assert entry.kind == "raw"
        assert "I moved to Porto in May." in entry.content
        [record] = _records(Workspace.open(tmp_path / "ws", read_only=True))
        assert record.outcome == "error"
        assert record.reason is not None
        assert "upstream down" in record.reason


def test_a_separate_memory_model_never_calibrates_the_chat_models_counter(
    tmp_path: Path,
) -> None:
    window = ModelConfig(model="chat", context_window=4_000, max_output_tokens=500)
    config = Config(model=window, memory_model=ModelConfig(model="small", context_window=4_000))
    memory_provider = ScriptedProvider(
        *itertools.repeat(ChatReply(text="- [durable] tea is green"), 20)
    )
    with MemoryEngine.open(
        tmp_path / "ws",
        config,
        provider=ScriptedProvider(),
        memory_provider=memory_provider,
        environ={},
        dense="off",
    ) as memory:
        memory.record("cli:a", [{"role": "user", "content": "we drink green tea " * 40}])
        assert memory.compact("cli:a").outcome == "summarised"
        assert len(memory_provider.requests) >= 1
        assert isinstance(memory.counter, CalibratedCounter)
        assert memory.counter.observations == 0
