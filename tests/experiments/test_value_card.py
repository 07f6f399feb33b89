"""`train-value --out DIR`: the model card's Reproduce command keeps every option given, --out above all."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def test_the_cards_command_writes_where_the_run_did_not_over_the_shipped_model(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    models, data = tmp_path / "models", tmp_path / "data"
    r = subprocess.run([*CLI, "train-value", "kiai", "--games", "10", "--epochs", "1", "--workers", "1", "--data",
                        str(data), "--out", str(models)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    card = (models / "kiai.md").read_text(encoding="utf-8")
    command = card.split("## Reproduce\n\n```\n")[1].split("\n```")[0]
    words = shlex.split(command)
    assert words[:3] == ["trpg-arena", "train-value", "kiai"]
    given = dict(zip(words[3::2], words[4::2]))
    assert given == {"--games": "10", "--seed": "0", "--noise": "0.1", "--keep": "0.25", "--generations": "0",
                     "--epochs": "1", "--workers": "1", "--data": str(data), "--out": str(models)}
    # run as written it aims at the run's folder, where the model stands: refused without --force, before any
    # game (the --games 9 added is refused only after that check, so a command without --out stops there too,
    # before it could rebuild the package's shipped model)
    again = subprocess.run([*CLI, *words[1:], "--games", "9"], capture_output=True, text=True, timeout=60)
    assert again.returncode == 2
    assert again.stderr.strip() == (f"error: --out: the model {models / 'kiai.npz'} exists: add --force to replace "
                                    "it, or name another file")
