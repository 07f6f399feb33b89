"""Run folders that never overwrite: ``runs/<command>/<UTC time>-<what>``, with -2, -3... on a clash."""

from __future__ import annotations

import time
from pathlib import Path

from trpg_arena.experiments.series.suite import slug


def run_folder(base: Path, what: str) -> Path:
    """Make and return a fresh folder under `base` (an existing one is never reused)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    base.mkdir(parents=True, exist_ok=True)
    for n in range(1, 10_000):
        path = base / (f"{stamp}-{slug(what)}" + (f"-{n}" if n > 1 else ""))
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
    raise RuntimeError(f"no free run folder under {base}")


def write_results(path: Path, records: list) -> None:
    """The results file: one canonical JSON line per game, in game order."""
    path.write_text("".join(r.line() + "\n" for r in records), encoding="utf-8")
