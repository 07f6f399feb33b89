"""Suites: a YAML file of encounters x line-ups, each with its test settings and its baseline file.

::

    baselines: baselines            # folder of the baseline files, relative to the suite file
    defaults: {games: 400, test: sprt, delta: 0.05}
    entries:
      - encounter: moonlit/duel     # a built-in name, or a file relative to the suite
        agents: scripted,scripted
      - encounter: kiai/skirmish
        agents: [scripted, random]
        test: fixed
        games: 200
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import yaml

from trpg_arena.experiments.series.spec import MAX_GAMES
from trpg_arena.rules import TrpgArenaError
from trpg_arena.rules.core.dice import SEED_MAX

TESTS = ("sprt", "fixed")
SUITE_KEYS = {"baselines", "defaults", "entries"}
ENCOUNTER_KEYS = {"ruleset", "combatants"}  # a YAML mapping with one of these is an encounter, not a suite


class SuiteError(TrpgArenaError, ValueError):
    """A suite file that cannot be used (the message names the file and the entry)."""


@dataclass(frozen=True)
class Entry:
    """One encounter and line-up of a suite with its test settings."""

    encounter: str
    agents: tuple[str, ...]
    baseline: Path
    games: int = 400  # the fixed-N test's games; the sequential test's cap; what --record plays
    seed: int = 0
    test: str = "sprt"
    delta: float = 0.05  # indifference zone: the smallest shift (a fraction) worth flagging
    alpha: float = 0.05
    beta: float = 0.05
    swap: bool | None = None  # None: swap sides when the line-up has different agents

    @property
    def label(self) -> str:
        """``encounter [agents]``: how reports name the entry."""
        return series_label(self.encounter, self.agents)


def series_label(encounter: str, agents: Sequence[str]) -> str:
    """``moonlit/duel [scripted,random]``: how every command's progress lines and reports name a series."""
    return f"{encounter} [{','.join(agents)}]"


def slug(text: str) -> str:
    """A file-name-safe form of an encounter name or line-up."""
    return re.sub(r"[^A-Za-z0-9.=_-]+", "-", text).strip("-") or "x"


def default_baseline(folder: Path, encounter: str, agents: tuple[str, ...]) -> Path:
    """Where an entry's baseline lives unless the suite names one."""
    return folder / f"{slug(Path(encounter).stem if encounter.endswith(('.yaml', '.yml', '.json')) else encounter)}" \
        f"--{slug(','.join(agents))}.json"


def make_entry(encounter: str, agents: tuple[str, ...], baseline: Path, **settings: Any) -> Entry:
    """An entry with its settings checked (a bad value raises ValueError naming it)."""
    entry = Entry(encounter, agents, baseline)
    known = {f.name for f in fields(Entry)}
    for key, value in settings.items():
        if key not in known - {"encounter", "agents", "baseline"}:
            raise ValueError(f"unknown setting '{key}' (known: {', '.join(sorted(known))})")
        if value is not None:
            entry = replace(entry, **{key: value})
    if entry.test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, got '{entry.test}'")
    if not isinstance(entry.games, int) or isinstance(entry.games, bool) or not 2 <= entry.games <= MAX_GAMES:
        raise ValueError(f"games must be a whole number from 2 to {MAX_GAMES:,}, got {entry.games!r}")
    if not isinstance(entry.seed, int) or isinstance(entry.seed, bool) or not 0 <= entry.seed <= SEED_MAX:
        raise ValueError(f"seed must be a whole number from 0 to {SEED_MAX}, got {entry.seed!r}")
    if entry.swap is not None and not isinstance(entry.swap, bool):
        raise ValueError(f"swap must be true or false (leave it out: swap when the agents differ), "
                         f"got {entry.swap!r}")
    for name in ("delta", "alpha", "beta"):
        v = getattr(entry, name)
        if not isinstance(v, (int, float)) or not 0 < v < 1:
            raise ValueError(f"{name} must lie strictly between 0 and 1, got {v!r}")
    return entry


def _agents(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(a.strip() for a in value.split(",") if a.strip())
    if isinstance(value, list) and all(isinstance(a, str) for a in value):
        return tuple(value)
    raise ValueError("agents must be 'a,b' or a list of agent specs")


def is_suite(path: str) -> bool:
    """Whether the target is a suite (a YAML mapping that is not an encounter) rather than an encounter.

    A ``.yaml`` / ``.yml`` target that is missing or not YAML is a `SuiteError` naming the cause:
    taking it for an encounter would only report a missing ``--baseline``.
    """
    p = Path(path)
    if p.suffix not in (".yaml", ".yml"):
        return False
    if not p.exists():
        raise SuiteError(f"{path}: no such file")
    data = _read_yaml(p, str(path))
    if not isinstance(data, dict):  # empty, a list, a word: read as an encounter it was refused in its words
        raise SuiteError(f"{path}: {'empty' if data is None else 'no mapping'}: neither a suite (a mapping with "
                         "'entries') nor an encounter (a mapping with 'ruleset' and 'combatants')")
    return not ENCOUNTER_KEYS & set(data)


def _read_yaml(path: Path, what: str) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise SuiteError(f"{what}: cannot read it ({getattr(e, 'strerror', None) or e})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise SuiteError(f"{what}: broken YAML ({where}{problem})") from None


def load_suite(path: Path) -> list[Entry]:
    """Read a suite file; raises `SuiteError` naming the file and the entry for anything wrong."""
    data = _read_yaml(path, f"suite {path}")
    if not isinstance(data, dict):
        raise SuiteError(f"suite {path}: expected a mapping with 'entries' (and optionally 'baselines', 'defaults')")
    unknown = set(data) - SUITE_KEYS
    if unknown:
        raise SuiteError(f"suite {path}: unknown key(s) {', '.join(sorted(map(str, unknown)))} (known: "
                         f"{', '.join(sorted(SUITE_KEYS))})")
    if not isinstance(data.get("entries"), list) or not data["entries"]:
        raise SuiteError(f"suite {path}: needs a non-empty 'entries' list")
    baselines = data.get("baselines", "baselines")
    if not isinstance(baselines, str) or not baselines.strip():  # `baselines: 5` made a folder named 5
        raise SuiteError(f"suite {path}: baselines must name a folder (text, relative to the suite file), got "
                         f"{baselines!r}")
    folder = path.parent / baselines
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise SuiteError(f"suite {path}: defaults must be a mapping")
    known = sorted(f.name for f in fields(Entry))
    bad = sorted(str(k) for k in defaults if k not in known)
    if bad:
        raise SuiteError(f"suite {path}: defaults: unknown setting(s) {', '.join(bad)} (known: {', '.join(known)})")
    _check_defaults(path, defaults)
    out = []
    for i, raw in enumerate(data["entries"]):
        where = f"suite {path}: entries[{i}]"
        if not isinstance(raw, dict):
            raise SuiteError(f"{where}: expected a mapping of settings (known: {', '.join(known)})")
        bad = sorted(str(k) for k in raw if k not in known)
        if bad:
            raise SuiteError(f"{where}: unknown setting(s) {', '.join(bad)} (known: {', '.join(known)})")
        raw = {**defaults, **raw}
        missing = [k for k in ("encounter", "agents") if k not in raw]
        if missing:
            raise SuiteError(f"{where}: needs {' and '.join(repr(k) for k in missing)}")
        encounter = str(raw.pop("encounter"))
        if encounter.endswith((".yaml", ".yml", ".json")) and not Path(encounter).is_absolute():
            encounter = str(path.parent / encounter)
        try:
            agents = _agents(raw.pop("agents"))
            base = raw.pop("baseline", None)
            baseline = path.parent / str(base) if base else default_baseline(folder, encounter, agents)
            out.append(make_entry(encounter, agents, baseline, **raw))
        except (ValueError, TypeError) as e:
            raise SuiteError(f"{where}: {e}") from None
    _one_baseline_each(path, out)
    return out


def _check_defaults(path: Path, defaults: dict[str, Any]) -> None:
    """A bad value in `defaults` is named there (``defaults.delta``), not at the first entry it reaches."""
    for key, value in defaults.items():  # each setting alone: none depends on another
        try:
            if key == "agents":
                _agents(value)
            elif key not in ("encounter", "baseline"):
                make_entry("defaults", (), Path(), **{key: value})
        except (ValueError, TypeError) as e:
            raise SuiteError(f"suite {path}: defaults.{key}: {e}") from None


def _one_baseline_each(path: Path, entries: list[Entry]) -> None:
    """Refuse two entries that share a baseline file: recording the second would overwrite the first's.

    Default names are the encounter's file stem (or built-in name) and the agents, so ``a/duel.yaml`` and
    ``b/duel.yaml``, or one encounter and line-up at two seeds, meet on one file; they are refused rather
    than renamed, so that a baseline never changes its name when an entry is added beside it.
    """
    first: dict[Path, int] = {}
    for i, entry in enumerate(entries):
        j = first.setdefault(entry.baseline.resolve(), i)
        if j != i:
            raise SuiteError(f"suite {path}: entries[{j}] ({entries[j].label}) and entries[{i}] ({entry.label}) "
                             f"both use the baseline file {entry.baseline}; give one of them its own "
                             "'baseline: FILE'")
