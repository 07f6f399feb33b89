"""Run folders that never overwrite: ``runs/<command>/<UTC time>-<what>``, with -2, -3... on a clash."""

from __future__ import annotations

import time
from pathlib import Path

from trpg_arena.experiments.series.suite import slug


def run_folder(base: Path, what: str) -> Path:
    """Make and return a fresh folder under `base` (an existing one is never reused)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return fresh_folder(base / f"{stamp}-{slug(what)}")


def fresh_folder(path: Path) -> Path:
    """Make and return `path`, or `path-2`, `path-3`... if it exists (mkdir is atomic: two runs never share one)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # a file in the way, or a folder that cannot be written in: one line, not a traceback
        raise ValueError(f"{path.parent}: cannot hold run folders ({e.strerror or e})") from None
    for n in range(1, 10_000):
        candidate = path.with_name(path.name + (f"-{n}" if n > 1 else ""))
        try:
            candidate.mkdir()
            return candidate
        except FileExistsError:
            continue
        except OSError as e:  # a folder that cannot be written in (read-only, /proc): one line, before any work
            raise ValueError(f"{path.parent}: cannot hold run folders ({e.strerror or e})") from None
    raise RuntimeError(f"no free run folder under {path.parent}")


def write_results(path: Path, records: list) -> None:
    """The results file: one canonical JSON line per game, in game order."""
    path.write_text("".join(r.line() + "\n" for r in records), encoding="utf-8")

