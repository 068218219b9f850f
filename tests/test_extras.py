"""Install hints name the command that works where reverie was installed from."""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie.cli.render import out
from reverie.config import extras
from reverie.config.extras import install_hint


def test_a_checkout_install_gets_an_editable_hint_naming_the_checkout() -> None:
    # The suite runs on `pip install -e .` of this checkout (what ./dev does).
    checkout = Path(__file__).resolve().parents[1]
    assert install_hint("serve") == f"pip install -e '{checkout}[serve]'"


def test_a_wheel_install_gets_the_wheel_and_an_index_install_the_name(tmp_path: Path) -> None:
    wheel = tmp_path / "reverie-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    assert extras.hint_for(f"file://{wheel}", editable=False, extra="postgres") == (
        f"pip install '{wheel}[postgres]'"
    )
    assert extras.hint_for(None, editable=False, extra="postgres") == (
        "pip install 'reverie[postgres]'"
    )


def test_a_wheel_that_is_gone_gets_the_extras_requirements(tmp_path: Path) -> None:
    # A wheel built in a temporary folder, since deleted: no reverie source resolves, the
    # extra's requirements (from this install's metadata) do. scripts/wheel_check.sh runs
    # the printed command through pip for a real wheel install.
    gone = tmp_path / "reverie-0.1.0-py3-none-any.whl"
    hint = extras.hint_for(f"file://{gone}", editable=False, extra="postgres")
    assert hint.startswith("pip install 'psycopg")
    assert "psycopg-pool" in hint
    assert "extra" not in hint
    assert str(gone) not in hint


def test_the_console_prints_brackets_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    out().print("recall: BM25 only (pip install 'reverie[embeddings]')")
    captured = capsys.readouterr()
    assert "reverie[embeddings]" in captured.out
