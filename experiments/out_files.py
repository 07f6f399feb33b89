"""Files a command is told to write (``--out FILE``): one that exists is replaced only when the person says so.

Run folders never collide (`series.folders`); a named file can. A command checks its ``--out`` here before it
starts any work, so a refusal costs nothing, and ``--force`` is how a person says the old file may go.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def check_replaceable(path: Path, force: bool, option: str = "--out") -> None:
    """Refuse (`ValueError`, one line) an existing `path` unless `force`; a folder is never a file to write."""
    if path.is_dir():
        raise ValueError(f"{option} {path} is a folder: name a file")
    if path.exists() and not force:
        raise ValueError(f"{option} {path} exists: add --force to replace it, or name another file")


def check_folder(folder: Path, option: str = "--out") -> None:
    """Refuse (`ValueError`, one line) a folder results cannot go to: a file, or one that cannot be made or written in.

    Checked before the work: found when the results are written, it lost a whole fight's or search's results.
    """
    if folder.is_dir():
        if not writable(folder):
            raise ValueError(f"{option} {folder}: this folder cannot be written in; name another")
        return
    if os.path.lexists(folder):
        what = "a link to nothing" if folder.is_symlink() else "a file"
        raise ValueError(f"{option} {folder} is {what}, not a folder: name a folder")
    above = folder.absolute().parent
    while not os.path.lexists(above):  # the nearest part of the path that is there: the folder is made in it
        above = above.parent
    if not above.is_dir():
        raise ValueError(f"{option} {folder} cannot be made: {above} is a file, not a folder")
    if not writable(above):
        raise ValueError(f"{option} {folder} cannot be made: {above} cannot be written in")


def writable(folder: Path) -> bool:
    """Whether a folder can be made in `folder`, found by making (and removing) one.

    Permission bits do not say it: root passes ``os.access`` everywhere, and /proc or a read-only mount still refuse.
    """
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".trpg-arena-probe-", dir=folder))
    except OSError:
        return False
    return True


def check_own_kind(path: Path, option: str, kind: str, is_kind: Callable[[Path], bool]) -> None:
    """Refuse (`ValueError`, one line) a `path` that exists and is not of the `kind` a command rewrites each run.

    A command that replaces its own earlier file (a baseline, a JUnit report) never replaces a person's file.
    """
    if path.is_dir():
        raise ValueError(f"{option} {path} is a folder: name a file")
    if os.path.lexists(path) and not is_kind(path):
        raise ValueError(f"{option} {path} exists and is not {kind}: name another file (or remove it)")
