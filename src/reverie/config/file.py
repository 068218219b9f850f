"""Loading configuration: ``reverie.toml`` in the workspace, then ``REVERIE_*`` env overrides.

This is the one place (with the CLI) that reads files and environment variables for settings;
everything below takes a ``Config`` value. Precedence: built-in defaults < ``reverie.toml`` <
environment. Env variables:

    REVERIE_WORKSPACE        the workspace folder (read by the CLI and ``default_workspace``)
    REVERIE_STORE            a postgresql:// URL: the workspace is ``-w NAME`` in that
                             database (read by ``reverie.storage.open``, not here)
    REVERIE_BASE_URL         model.base_url
    REVERIE_API_KEY          the API key (the default ``model.api_key_env``)
    REVERIE_MODEL            model.model
    REVERIE_PROVIDER         model.provider (openai | anthropic)
    REVERIE_CONTEXT_WINDOW   model.context_window
    REVERIE_MAX_OUTPUT_TOKENS  model.max_output_tokens
    REVERIE_MEMORY_MODEL     memory_model.model (a cheaper model for compaction and dream)
    REVERIE_COMPACTION_RATIO compaction.ratio
    REVERIE_IDLE_MINUTES     compaction.idle_minutes
    REVERIE_DREAM_INTERVAL_MINUTES  dream.interval_minutes
    REVERIE_DREAM_CRON       dream.cron
    REVERIE_DREAM_MODE       dream.mode (auto | model | model-free)
    REVERIE_UNIFIED_SESSION  prompt.unified_session (1/true/yes)
    REVERIE_RECALL_TOKENS    prompt.recall_tokens (0 disables recall)
    REVERIE_RECALL_EMBEDDINGS  recall.embeddings (auto or off)
    REVERIE_LEASE_SECONDS    store.lease_seconds (a dead server's locks free after this)
    REVERIE_UNKNOWN_PRINCIPALS  serve.unknown_principals (create | refuse)

Secrets never live in ``reverie.toml`` (it may be shared): the key comes from the env variable
named by ``model.api_key_env``, or from ``model.api_key_file``, a file outside the workspace.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from reverie.config.bounded import read_bounded
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.errors import ConfigError

CONFIG_NAME = "reverie.toml"
DEFAULT_WORKSPACE = "~/.reverie/default"

_ENV: dict[str, tuple[str, str, type]] = {
    "REVERIE_BASE_URL": ("model", "base_url", str),
    "REVERIE_MODEL": ("model", "model", str),
    "REVERIE_PROVIDER": ("model", "provider", str),
    "REVERIE_CONTEXT_WINDOW": ("model", "context_window", int),
    "REVERIE_MAX_OUTPUT_TOKENS": ("model", "max_output_tokens", int),
    "REVERIE_MEMORY_MODEL": ("memory_model", "model", str),
    "REVERIE_COMPACTION_RATIO": ("compaction", "ratio", float),
    "REVERIE_IDLE_MINUTES": ("compaction", "idle_minutes", float),
    "REVERIE_DREAM_INTERVAL_MINUTES": ("dream", "interval_minutes", float),
    "REVERIE_DREAM_CRON": ("dream", "cron", str),
    "REVERIE_DREAM_MODE": ("dream", "mode", str),
    "REVERIE_UNIFIED_SESSION": ("prompt", "unified_session", bool),
    "REVERIE_RECALL_TOKENS": ("prompt", "recall_tokens", int),
    "REVERIE_RECALL_EMBEDDINGS": ("recall", "embeddings", str),
    "REVERIE_LEASE_SECONDS": ("store", "lease_seconds", float),
    "REVERIE_UNKNOWN_PRINCIPALS": ("serve", "unknown_principals", str),
}


def default_workspace(environ: Mapping[str, str] | None = None) -> Path:
    """Return ``$REVERIE_WORKSPACE`` or ``~/.reverie/default``, expanded."""
    env = os.environ if environ is None else environ
    return Path(env.get("REVERIE_WORKSPACE") or DEFAULT_WORKSPACE).expanduser()


def load_config(workspace: Path | None, environ: Mapping[str, str] | None = None) -> Config:
    """Read ``workspace/reverie.toml`` (if any) and apply the ``REVERIE_*`` overrides.

    ``workspace`` None (a database workspace named by ``REVERIE_STORE``): no file is read.

    Raises:
        ConfigError: the file is not valid TOML, or a key or value is invalid (the error
            names the key, and the env variable when it came from one).
    """
    env = os.environ if environ is None else environ
    data = {} if workspace is None else _read_toml(workspace / CONFIG_NAME)
    sources = setting_sources(data, env)
    for name, (section, key, kind) in _ENV.items():
        if name in env and env[name] != "":
            table = data.setdefault(section, {})
            if not isinstance(table, dict):
                raise ConfigError(f"[{section}] must be a table", key=section)
            table[key] = _parse_env(name, env[name], kind)
    try:
        config = replace(Config.from_mapping(data), sources=sources)
    except ConfigError as exc:
        raise _naming_env(exc, env) from exc
    for model in (config.model, config.memory_model):
        if model is not None and model.api_key_file is not None and workspace is not None:
            _check_key_file(Path(model.api_key_file).expanduser(), workspace)
    return config


SOURCED = (
    "model.model",
    "model.base_url",
    "model.provider",
    "model.context_window",
    "memory_model.model",
    "dream.mode",
)
"""The settings whose origin ``Config.sources`` records: those that decide which model runs, and
the window it is given (the one the README asks a local server's user to set)."""


def setting_sources(data: Mapping[str, Any], env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """Where each ``SOURCED`` setting comes from: its env variable, ``reverie.toml`` or default.

    ``data`` is the parsed file, before the environment is applied.
    """
    by_key = {f"{section}.{key}": name for name, (section, key, _kind) in _ENV.items()}
    found: list[tuple[str, str]] = []
    for setting in SOURCED:
        section, key = setting.split(".")
        table = data.get(section)
        if env.get(by_key.get(setting, "")):
            found.append((setting, by_key[setting]))
        elif isinstance(table, dict) and key in table:
            found.append((setting, CONFIG_NAME))
        else:
            found.append((setting, "default"))
    return tuple(found)


def _read_toml(path: Path) -> dict[str, Any]:
    """The parsed ``reverie.toml`` ({} when absent); a BOM is accepted, a non-file refused."""
    if not path.exists() and not path.is_symlink():
        return {}
    if not path.is_file():  # a folder, a FIFO (reading it could block), a dangling link
        raise ConfigError(
            f"{path} is not a regular file; remove it or make it one", key=CONFIG_NAME
        )
    try:
        return tomllib.loads(read_bounded(path).decode("utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}", key=CONFIG_NAME) from exc
    except OSError as exc:
        raise ConfigError(f"cannot read {path} ({exc.strerror})", key=CONFIG_NAME) from exc


def _naming_env(error: ConfigError, env: Mapping[str, str]) -> ConfigError:
    """The same error, saying which environment variable set the key when one did."""
    for name, (section, key, _kind) in _ENV.items():
        if error.key == f"{section}.{key}" and env.get(name):
            return ConfigError(f"{error} (set by {name})", key=error.key)
    return error


def api_key(model: ModelConfig, environ: Mapping[str, str] | None = None) -> str | None:
    """Return the API key for ``model``: its env variable, else its key file, else None."""
    env = os.environ if environ is None else environ
    value = env.get(model.api_key_env)
    if value:
        return value
    if model.api_key_file is not None:
        path = Path(model.api_key_file).expanduser()
        try:
            return path.read_text(encoding="utf-8").strip() or None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(
                f"cannot read model.api_key_file {path}: {exc}", key="model.api_key_file"
            ) from exc
    return None


def _parse_env(name: str, raw: str, kind: type) -> object:
    if kind is bool:
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"{name} must be true or false, got {raw!r}", key=name)
    if kind is str:
        return raw
    try:
        return kind(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be a number, got {raw!r}", key=name) from exc


def _check_key_file(key_file: Path, workspace: Path) -> None:
    resolved, root = key_file.resolve(), workspace.resolve()
    if resolved == root or root in resolved.parents:
        raise ConfigError(
            f"model.api_key_file {key_file} is inside the workspace; keep secrets outside it",
            key="model.api_key_file",
        )


CONFIG_TEMPLATE = """\
# reverie configuration. Every key is optional; REVERIE_* env variables override these.
# Secrets do not belong here: set REVERIE_API_KEY in the environment instead.

[model]
# provider = "openai"                 # or "anthropic" ({anthropic_hint})
# base_url = "https://api.openai.com/v1"   # Ollama: http://localhost:11434/v1
# model = "gpt-4o-mini"               # empty: no model; memory runs model-free
# context_window = 128000
# max_output_tokens = 4096           # unset: a quarter of the window, at most 4096
# api_key_env = "REVERIE_API_KEY"     # which env variable holds the key
# api_key_file = "~/.config/reverie/key"   # or a file outside the workspace

[memory_model]                        # empty: compaction and dream use [model]
# model = "gpt-4o-mini"               # a cheaper model for compaction and dream

[compaction]
# ratio = 0.5                         # compact down to this share of the input budget
# idle_minutes = 15                   # compact sessions idle this long; 0 disables

[dream]
# interval_minutes = 120              # or cron = "0 3 * * *"
# pending_trigger = 20                # run when this many entries wait
# mode = "auto"                       # auto | model | model-free
# keep_history = 1000

[prompt]
# recent_entries = 50
# recent_tokens = 8000
# unified_session = false             # true: one conversation across all sessions

[sessions]
# raw_transcripts = false             # true: also keep the raw text of messages a secret was
#                                     # redacted from, for that session's own prompt only

[store]                               # empty: memory lives in this folder
# url = "postgresql://reverie@db.example/reverie"   # memory in that database (no password here)
# workspace = "team"                  # its name there (default: this folder's name)
# lease_seconds = 30                  # a dead server's locks free themselves after this
"""


def config_text() -> str:
    """The commented ``reverie.toml`` that ``reverie init`` writes, its hints for this install."""
    from reverie.config.extras import install_hint  # noqa: PLC0415 (read only when init writes it)

    return CONFIG_TEMPLATE.replace("{anthropic_hint}", install_hint("anthropic"))
