"""The Ray backend: the same results file as the local pool, byte for byte (a local Ray).

Ray is in the ``all`` extra that ``make install`` installs, so a missing Ray fails here, not skips.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from trpg_arena.experiments.series import SeriesSpec, run_series
from trpg_arena.experiments.series.folders import write_results

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def test_ray_gives_byte_identical_results(tmp_path: Path) -> None:
    import ray  # noqa: F401 - must be installed (extra 'ray', part of 'all')

    spec = SeriesSpec.build("kiai/duel", ["scripted", "random"], 24, first_seed=3)
    write_results(tmp_path / "local.jsonl", list(run_series(spec, workers=2)))
    write_results(tmp_path / "ray.jsonl", list(run_series(spec, workers=2, backend="ray", batch=5)))
    assert (tmp_path / "local.jsonl").read_bytes() == (tmp_path / "ray.jsonl").read_bytes()


def test_evaluate_on_ray_writes_the_same_results_file(tmp_path: Path) -> None:
    files = []
    for backend in ("local", "ray"):
        out = tmp_path / backend
        r = subprocess.run([*CLI, "evaluate", "kiai/duel", "--agents", "scripted,random", "--games", "12",
                            "--workers", "2", "--backend", backend, "--out", str(out)],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]
        (folder,) = out.iterdir()
        files.append((folder / "results.jsonl").read_bytes())
        assert json.loads((folder / "summary.json").read_text())["games"] == 12
    assert files[0] == files[1]
