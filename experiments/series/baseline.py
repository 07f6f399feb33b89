"""Baselines: a recorded series (its spec and every game record) that later runs are compared with.

A baseline is refused, with what differs named, when the new run's spec does not match it: the
encounter content (down to the changed fields), the rule system's ``env_version``, the line-up or
the side swapping. A missing, unreadable or foreign file is a `BaselineError` naming the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trpg_arena.experiments.out_files import check_own_kind
from trpg_arena.experiments.series.game import GameRecord
from trpg_arena.experiments.series.spec import SeriesSpec
from trpg_arena.rules import TrpgArenaError

KIND = "trpg-arena baseline"
VERSION = 1


class BaselineError(TrpgArenaError, ValueError):
    """A baseline file that cannot be used (missing, not JSON, not a baseline)."""


class StaleBaselineError(TrpgArenaError, ValueError):
    """A baseline recorded for another spec than the run's (the message names what differs)."""


def write_baseline(path: Path, spec: SeriesSpec, records: list[GameRecord]) -> None:
    """Record a baseline (the folder is made; an existing file is replaced: recording is deliberate)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"kind": KIND, "version": VERSION, "spec": spec.to_json(), "records": [r.to_json() for r in records]}
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def check_recordable(path: Path) -> None:
    """Before a recording plays: `path` may take a baseline (new, or an earlier baseline that recording replaces).

    Any other file there is a person's, and is not replaced (``--record --baseline notes.txt`` overwrote it).
    """
    try:
        check_own_kind(path, "baseline", "a trpg-arena baseline", _is_baseline)
    except ValueError as e:
        raise BaselineError(str(e)) from None


def _is_baseline(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(data, dict) and data.get("kind") == KIND


def read_baseline(path: Path) -> tuple[SeriesSpec, list[GameRecord]]:
    """Load a baseline, or raise `BaselineError` naming the file and the problem."""
    if not path.is_file():
        raise BaselineError(f"baseline {path}: no such file (record one with --record)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise BaselineError(f"baseline {path}: cannot read it ({e})") from None
    except json.JSONDecodeError as e:
        raise BaselineError(f"baseline {path}: not JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise BaselineError(f"baseline {path}: not a trpg-arena baseline (no \"kind\": \"{KIND}\"; "
                            "record one with --record)")
    if data.get("version") != VERSION:
        raise BaselineError(f"baseline {path}: format version {data.get('version')!r}, this build reads {VERSION}")
    try:
        spec = SeriesSpec.from_json(data["spec"])
        records = [GameRecord.from_json(r) for r in data["records"]]
    except (KeyError, TypeError, ValueError) as e:
        raise BaselineError(f"baseline {path}: malformed ({type(e).__name__}: {e})") from None
    if len(records) != spec.games:
        raise BaselineError(f"baseline {path}: {len(records)} game records for a series of {spec.games}")
    return spec, records


def differences(base: SeriesSpec, new: SeriesSpec) -> list[tuple[str, str]]:
    """What makes `base` the wrong yardstick for `new`: (kind, phrase) each (empty: comparable).

    Kinds: ``content``, ``env_version`` (a rule system change counts as one), ``lineup``, ``swap``.
    """
    out = []
    if base.name != new.name and base.content_hash != new.content_hash:  # another rule system alone: said below
        out.append(("content", f"encounter ({base.name}, hash {base.content_hash} -> {new.name}, hash "
                               f"{new.content_hash})"))
    elif base.content_hash != new.content_hash:
        fields = _changed(json.loads(base.content), json.loads(new.content))
        shown = ", ".join(fields[:6]) + (f" and {len(fields) - 6} more" if len(fields) > 6 else "")
        out.append(("content", f"encounter content (hash {base.content_hash} -> {new.content_hash}: {shown})"))
    if base.ruleset != new.ruleset:
        out.append(("env_version", f"rule system ({base.ruleset} -> {new.ruleset})"))
    elif base.env_version != new.env_version:
        out.append(("env_version", f"{new.ruleset} env_version ({base.env_version} -> {new.env_version})"))
    if base.lineup != new.lineup:
        out.append(("lineup", f"line-up ({','.join(base.lineup)} -> {','.join(new.lineup)})"))
    if base.swap != new.swap:
        out.append(("swap", f"side swapping ({base.swap} -> {new.swap})"))
    return out


def _changed(a: Any, b: Any, where: str = "") -> list[str]:
    """Paths of the fields that differ between two JSON values, e.g. ``combatants[1].max_hp 40 -> 60``."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            path = f"{where}.{k}" if where else str(k)
            if k not in a or k not in b:
                out.append(f"{path} {'added' if k not in a else 'removed'}")
            else:
                out += _changed(a[k], b[k], path)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [p for i, (x, y) in enumerate(zip(a, b)) for p in _changed(x, y, _item(where, i, x, y))]
    return [] if a == b else [f"{where or '<root>'} {_short(a)} -> {_short(b)}"]


def _short(value: Any, most: int = 30) -> str:
    """A value as JSON, cut to `most` characters with '...' where cut (a bare cut left an open quote)."""
    text = json.dumps(value)
    return text if len(text) <= most else text[:most - 3] + "..."


def _item(where: str, i: int, a: Any, b: Any) -> str:
    """``combatants[1] (id 'ghoul')``: a list item named by its id, as encounter errors name combatants."""
    ids = {x.get("id") for x in (a, b) if isinstance(x, dict)} - {None}
    return f"{where}[{i}]" + (f" (id '{ids.pop()}')" if len(ids) == 1 else "")


def check(path: Path, base: SeriesSpec, new: SeriesSpec, allow: frozenset[str] = frozenset()) -> None:
    """Raise `StaleBaselineError` unless the baseline fits (differences of an `allow`ed kind pass)."""
    bad = [phrase for kind, phrase in differences(base, new) if kind not in allow]
    if bad:
        raise StaleBaselineError(f"baseline {path} was recorded for another series: " + "; ".join(bad)
                                 + " (record it again with --record, or --allow KIND to measure a deliberate change)")
