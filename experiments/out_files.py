"""Files a command is told to write (``--out FILE``): one that exists is replaced only when the person says so.

Run folders never collide (`series.folders`); a named file can. A command checks its ``--out`` here before it
starts any work, so a refusal costs nothing, and ``--force`` is how a person says the old file may go.
"""

from __future__ import annotations

from pathlib import Path


def check_replaceable(path: Path, force: bool, option: str = "--out") -> None:
    """Refuse (`ValueError`, one line) an existing `path` unless `force`; a folder is never a file to write."""
    if path.is_dir():
        raise ValueError(f"{option} {path} is a folder: name a file")
    if path.exists() and not force:
        raise ValueError(f"{option} {path} exists: add --force to replace it, or name another file")
