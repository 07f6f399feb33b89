"""Why an ``.npz`` file a person named could not be read, in one line (models, self-play data).

`np.load` fails in several ways on a file that is not what it should be: a damaged or cut-short
archive (`zipfile.BadZipFile`, `EOFError`, `zlib.error`), a missing entry (`KeyError`), a file that
is no archive at all (`ValueError`, whose text suggests loading it with pickle: never done here, so
it is not repeated), a folder or a file that cannot be opened (`OSError`). Callers catch
`UNREADABLE` around the load and the reading of its arrays, and word the reason with `why`.

A zip archive that stable-baselines3 saved a model in (`sb3_model`) loads as an ``.npz`` without its
entries: its owner named the wrong kind of model, which a caller says with how to play it instead.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

UNREADABLE = (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, zlib.error)
# What every archive SB3 saves a model in holds: the model's data (JSON: its class, spaces, settings) and its weights
SB3_ENTRIES = ("data", "policy.pth")


def sb3_model(path: str | Path) -> bool:
    """Whether ``path`` is a zip archive holding a stable-baselines3 model's data and weights (not an ``.npz``)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return set(SB3_ENTRIES) <= set(archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return False


def why(error: BaseException) -> str:
    """The reason a load failed, for a message that names the file: ``no 'format' entry``."""
    if isinstance(error, zipfile.BadZipFile | EOFError | zlib.error):
        return "a damaged or cut-short .npz archive"
    if isinstance(error, KeyError):
        entry = str(error.args[0]).removesuffix(" is not a file in the archive") if error.args else "?"
        return f"no {entry!r} entry"
    if isinstance(error, ValueError) and "pickle" in str(error):
        return "not an .npz archive of arrays"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)
