"""The encounter balancer: search stat-block knobs until one side wins as often as the designer wants.

``--knob B1.hp=10..60`` names a combatant (its roster id), a numeric field of its stat block and an
integer range. The response (the target side's win rate over a series) is taken as monotone in
each knob: one knob is bisected; several are searched in turn, each bisected with the others held
(a budgeted coordinate search), until the game budget runs out. Every setting is screened on a
small series (the same seeds for all, so settings differ by the knob, not the dice); one screened
within the tolerance of the target is confirmed on blocks of fresh games until the Wilson 95 %
interval of the win rate lies inside target +/- tolerance (or leaves the target out), and is then
verified the same way on other fresh seeds. A failed confirmation's estimate steers the bisection. A
confirmation starts only when the budget holds a block for it and one for its verification; a setting the
budget could not confirm, or confirmed but could not verify, is reported as such. The tuned encounter is
written as YAML next to the report.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from trpg_arena.experiments.series import GameRecord, SeriesSpec, run_series
from trpg_arena.experiments.series.folders import run_folder
from trpg_arena.experiments.series.report import write_report
from trpg_arena.experiments.series.runner import check_backend
from trpg_arena.experiments.series.sprt import wilson
from trpg_arena.experiments.series.words import pct, rate
from trpg_arena.rules import RULESETS, TrpgArenaError, load_encounter
from trpg_arena.rules.core.encounter import BUILTIN, read_encounter_file

KNOB = re.compile(r"^([\w.-]+)\.(\w+)=(-?\d+)\.\.(-?\d+)$")


class BalanceError(TrpgArenaError, ValueError):
    """A knob or target that cannot be searched (the message names it)."""


@dataclass(frozen=True)
class Knob:
    """One field of one combatant, searched over integers lo..hi."""

    combatant: str
    field: str
    lo: int
    hi: int

    @property
    def label(self) -> str:
        """``id.field``."""
        return f"{self.combatant}.{self.field}"

    @classmethod
    def parse(cls, text: str) -> Knob:
        """``ID.FIELD=LO..HI``."""
        m = KNOB.match(text.strip())
        if not m:
            raise BalanceError(f"--knob '{text}': expected ID.FIELD=LO..HI, e.g. ghoul.max_hp=20..60")
        lo, hi = int(m.group(3)), int(m.group(4))
        if lo >= hi:
            raise BalanceError(f"--knob '{text}': the range must run from low to high")
        return cls(m.group(1), m.group(2), lo, hi)


def raw_encounter(name: str) -> dict[str, Any]:
    """The encounter's own YAML data (not the validated model: the tuned file keeps the author's fields)."""
    path = Path(name)
    m = BUILTIN.match(name)
    if not path.exists() and m and m.group(1) in RULESETS:
        path = RULESETS[m.group(1)].info.data_dir / "encounters" / f"{m.group(2)}.yaml"
    load_encounter(name)  # a bad name or file is reported the usual way
    data = read_encounter_file(path)
    if not isinstance(data, dict):
        raise BalanceError(f"{name}: not an encounter mapping")
    return data


def check_knobs(data: dict[str, Any], knobs: list[Knob], name: str) -> None:
    """Every knob names a combatant and a whole-number field it has (else a message listing what exists).

    A field may come from the file or from what the rule system fills in (a template's ``life``).
    """
    ids = [c.get("id") for c in data.get("combatants", [])]
    model = {c["id"]: c for c in load_encounter(data, source=name).model_dump(mode="json")["combatants"]}
    for k in knobs:
        if k.combatant not in ids:
            raise BalanceError(f"--knob {k.label}: {name} has no combatant '{k.combatant}' (ids: {', '.join(ids)})")
        c = {**model.get(k.combatant, {}), **data["combatants"][ids.index(k.combatant)]}
        if not isinstance(c.get(k.field), int) or isinstance(c.get(k.field), bool):
            numeric = [f for f, v in c.items() if isinstance(v, int) and not isinstance(v, bool)]
            raise BalanceError(f"--knob {k.label}: '{k.combatant}' has no whole-number field '{k.field}' "
                               f"(its numbers: {', '.join(numeric)})")
    for k in knobs:  # both ends of every range make a valid encounter, or the search would stop on one mid-run
        for end in (k.lo, k.hi):
            try:
                load_encounter(apply(data, {k: end}), source=name)
            except TrpgArenaError as e:
                raise BalanceError(f"--knob {k.label}={k.lo}..{k.hi}: {k.field} {end} is not allowed ({e})") from None


def apply(data: dict[str, Any], setting: dict[Knob, int]) -> dict[str, Any]:
    """A copy of the encounter data with the knobs set."""
    out = json.loads(json.dumps(data))
    for k, v in setting.items():
        next(c for c in out["combatants"] if c.get("id") == k.combatant)[k.field] = v
    return out


@dataclass
class Search:
    """The state of one balancing run: what was tried, at what cost."""

    name: str
    data: dict[str, Any]
    lineup: tuple[str, ...]
    side: str
    target: float
    tolerance: float
    screen: int
    confirm: int
    budget: int
    workers: int | None
    backend: str
    games: int = 0
    tried: list[dict[str, Any]] = field(default_factory=list)
    cache: dict[tuple[tuple[str, int], ...], float] = field(default_factory=dict)  # setting -> best estimate
    confirmed: set[tuple[tuple[str, int], ...]] = field(default_factory=set)  # settings confirmation was tried on
    # the last setting screened close to the target that the budget could not confirm and verify, or that was
    # confirmed and not verified: what the search found short of a verified setting
    short: dict[str, Any] | None = None
    on_try: Callable[[dict[str, Any], Search], None] | None = None  # told of each series as it ends (progress)
    started: float = field(default_factory=time.perf_counter)

    def play(self, setting: dict[Knob, int], games: int, seed: int, phase: str = "screen",
             before: list[GameRecord] | None = None) -> tuple[SeriesSpec, list[GameRecord], float]:
        """Play a series of the setting; logs it (with `before`'s games counted in) to `tried`."""
        enc = load_encounter(apply(self.data, setting), source=self.name)
        spec = SeriesSpec.build(enc, self.lineup, games, seed, name=self.name)
        records = (before or []) + list(run_series(spec, self.workers, self.backend))
        self.games += games
        rate = sum(r.result == self.side for r in records) / len(records)
        lo, hi = wilson(rate * len(records), len(records))
        self.tried.append({"phase": phase, "setting": {k.label: v for k, v in setting.items()},
                           "games": len(records), "first_seed": seed - len(before or []), "win_rate": round(rate, 4),
                           "interval95": [round(lo, 4), round(hi, 4)]})
        if self.on_try is not None:
            self.on_try(self.tried[-1], self)
        return spec, records, rate

    def rate(self, setting: dict[Knob, int]) -> float:
        """Screening estimate of a setting (each setting is screened once)."""
        key = key_of(setting)
        if key not in self.cache:
            self.cache[key] = self.play(setting, self.screen, 0)[2]
        return self.cache[key]

    def inside(self, records: list[GameRecord]) -> bool:
        """Whether the Wilson interval of the side's win rate lies inside target +/- tolerance."""
        n = len(records)
        lo, hi = wilson(sum(r.result == self.side for r in records), n)
        return self.target - self.tolerance <= lo and hi <= self.target + self.tolerance

    def left(self) -> int:
        """Games left in the budget."""
        return self.budget - self.games

    def fell_short(self, setting: dict[Knob, int], why: str, records: list[GameRecord] | None = None) -> None:
        """Keep a setting that looked right but was not verified, and why (its confirmation games, if any).

        One with confirmation games is not replaced by a later one the budget could not even start on.
        """
        if not records and self.short is not None and "games" in self.short:
            return
        self.short = {"setting": {k.label: v for k, v in setting.items()}, "why": why}
        if records:
            wins = sum(r.result == self.side for r in records)
            lo, hi = wilson(wins, len(records))
            self.short.update(games=len(records), win_rate=round(wins / len(records), 4),
                              interval95=[round(lo, 4), round(hi, 4)])


def key_of(setting: dict[Knob, int]) -> tuple[tuple[str, int], ...]:
    """A setting as the search's tables key it: each knob's label and value, in label order."""
    return tuple(sorted((k.label, v) for k, v in setting.items()))


def bisect(s: Search, knob: Knob, setting: dict[Knob, int]) -> tuple[int, list[GameRecord] | None]:
    """Bisect `knob` (others held); returns its best value and, when one was verified, its verification games.

    A value screened within the tolerance is confirmed and verified at once (`try_setting`); when that
    fails, the confirmation's better estimate replaces the screening one and the bisection goes on.
    """
    lo, hi = knob.lo, knob.hi
    unscreened = sum(key_of({**setting, knob: end}) not in s.cache for end in (lo, hi))
    if s.left() < unscreened * s.screen:  # the budget cannot screen both ends (a second knob's): it stays put
        return setting[knob], None
    rising = s.rate({**setting, knob: hi}) >= s.rate({**setting, knob: lo})
    for end in (lo, hi):
        verified = try_setting(s, {**setting, knob: end})
        if verified is not None:
            return end, verified
    while hi - lo > 1 and s.left() >= s.screen:
        mid = (lo + hi) // 2
        verified = try_setting(s, {**setting, knob: mid})
        if verified is not None:
            return mid, verified
        if (s.rate({**setting, knob: mid}) < s.target) == rising:
            lo = mid
        else:
            hi = mid
    return min((lo, hi), key=lambda v: abs(s.rate({**setting, knob: v}) - s.target)), None


def try_setting(s: Search, setting: dict[Knob, int]) -> list[GameRecord] | None:
    """Screen a setting; if it looks close, confirm it and verify it on fresh seeds (the verified games).

    Confirming starts only with a block of games left for it and one for the verification: a confirmation the
    budget cannot verify would spend games the screening could use, to no result.
    """
    key = key_of(setting)
    if abs(s.rate(setting) - s.target) > s.tolerance or key in s.confirmed:
        return None
    if s.left() < 2 * s.confirm:
        s.fell_short(setting, f"confirming and verifying it takes at least {2 * s.confirm:,} games, "
                              f"{s.left():,} were left")
        return None
    s.confirmed.add(key)
    records, inside = confirm_setting(s, setting, 10_000, "confirm", keep=s.confirm)
    if not inside:
        if not _decided(s, records):  # stopped by the budget, not by what the games said
            s.fell_short(setting, "the budget ran out while confirming it", records)
        return None
    verified, inside = confirm_setting(s, setting, 20_000, "verify")  # fresh seeds: not the ones it was chosen on
    if inside:
        return verified
    if not _decided(s, verified):  # fresh seeds that put it outside the tolerance are an answer: it is not kept
        s.fell_short(setting, "confirmed, but the budget ran out before fresh seeds verified it", records)
    return None


def _decided(s: Search, records: list[GameRecord]) -> bool:
    """Whether a confirmation's games settled the setting: off the target (the interval leaves it out) or 4 blocks."""
    if len(records) >= 4 * s.confirm:
        return True
    lo, hi = wilson(sum(r.result == s.side for r in records), len(records)) if records else (0.0, 1.0)
    return hi < s.target or lo > s.target


def confirm_setting(s: Search, setting: dict[Knob, int], seed: int, phase: str,
                    keep: int = 0) -> tuple[list[GameRecord], bool]:
    """Play blocks of `confirm` games until the interval lies inside the tolerance; the games, and whether it did.

    It cannot when the interval leaves the target out, after four blocks, or when the budget (less `keep`
    games, kept for what follows) runs out. Each block's running estimate becomes the setting's rate for the
    search (it rests on more games).
    """
    key = key_of(setting)
    records: list[GameRecord] = []
    while len(records) < 4 * s.confirm and s.left() - keep >= s.confirm:
        records = s.play(setting, s.confirm, seed + len(records), phase, records)[1]
        s.cache[key] = sum(r.result == s.side for r in records) / len(records)
        if s.inside(records):
            return records, True
        if _decided(s, records):
            return records, False
    return records, False


def balance(name: str, knobs: list[Knob], target: float, lineup: tuple[str, ...], *, side: str | None = None,
            tolerance: float = 0.05, screen: int = 100, confirm: int = 600, budget: int = 5000,
            workers: int | None = None, backend: str = "local",
            on_try: Callable[[dict[str, Any], Search], None] | None = None,
            on_start: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Search the knobs (see the module docstring); returns the summary (found or not) and the tuned data.

    `on_start` hears the side tuned once every argument is checked, before the first game; `on_try` hears of
    every series played, as it ends (the command prints a line for each).
    """
    if not 0 < target < 1:
        raise BalanceError(f"--target must lie strictly between 0 and 1, got {target}")
    if not knobs:
        raise BalanceError("balance needs at least one --knob ID.FIELD=LO..HI")
    if not 0 < tolerance < 0.5:  # NaN fails too; a 95 % interval never has width 0, so 0 could never be met
        raise BalanceError(f"--tolerance must lie strictly between 0 and 0.5, got {tolerance}")
    for option, games in (("--screen", screen), ("--confirm", confirm)):
        if games < 1:
            raise BalanceError(f"{option} must be at least 1 game, got {games}")
    if budget < 2 * screen:  # the search starts by screening both ends of a range: less plays no game at all
        raise BalanceError(f"--budget {budget} leaves no room to screen both ends of a knob's range (2 x --screen "
                           f"{screen} games)")
    check_backend(backend, workers)
    data = raw_encounter(name)
    twice = sorted({k.label for k in knobs if [j.label for j in knobs].count(k.label) > 1})
    if twice:  # the last range silently won, and the search screened one setting as if it were two
        raise BalanceError(f"--knob {', '.join(twice)} given more than once: give each field one range")
    check_knobs(data, knobs, name)
    enc = load_encounter(name)
    pcs = [c.side for c in enc.combatants if getattr(c, "kind", None) == "pc"]
    side = side or (pcs[0] if pcs else enc.sides()[0])
    if side not in enc.sides():
        raise BalanceError(f"--side '{side}' is not a side of {name} (sides: {', '.join(enc.sides())})")
    SeriesSpec.build(enc, lineup, screen, name=name)  # one known agent per side, before any game
    if on_start is not None:
        on_start(side)
    started = time.perf_counter()
    s = Search(name, data, lineup, side, target, tolerance, screen, confirm, budget, workers, backend,
               on_try=on_try)
    setting = {k: (k.lo + k.hi) // 2 for k in knobs}
    found: dict[str, Any] | None = None
    for _ in range(1 if len(knobs) == 1 else 4):  # coordinate search: each knob bisected with the others held
        before = dict(setting)
        for k in knobs:
            value, verified = bisect(s, k, setting)
            setting = {**setting, k: value}
            if verified is not None:
                break
        if verified is not None:
            enc = load_encounter(apply(data, setting), source=name)
            vspec = SeriesSpec.build(enc, lineup, len(verified), 20_000, name=name)
            found = {"setting": {k.label: v for k, v in setting.items()}, "spec": vspec, "records": verified,
                     "win_rate": sum(r.result == side for r in verified) / len(verified)}
            break
        if setting == before or s.left() < s.screen:
            break
    summary: dict[str, Any] = {
        "encounter": name, "side": side, "target": target, "tolerance": tolerance, "lineup": list(lineup),
        "knobs": [f"{k.label}={k.lo}..{k.hi}" for k in knobs], "found": found is not None,
        "games": s.games, "seconds": round(time.perf_counter() - started, 1), "tried": s.tried}
    if found is None and s.short is not None:
        summary["short"] = s.short
    if found is not None:
        lo, hi = wilson(found["win_rate"] * len(found["records"]), len(found["records"]))
        summary.update(setting=found["setting"], verified_win_rate=round(found["win_rate"], 4),
                       verified_interval95=[round(lo, 4), round(hi, 4)])
        summary["_tuned"] = apply(data, {k: setting[k] for k in knobs})
        summary["_series"] = (found["spec"], found["records"])
    return summary


def short_line(summary: dict[str, Any]) -> str | None:
    """What a search that verified no setting got closest to, in words (None when nothing looked right)."""
    short = summary.get("short")
    if short is None:
        return None
    games = (f" (confirmation: {rate(short['win_rate'], *short['interval95'], digits=1)} over {short['games']:,} "
             "games)" if "games" in short else "")
    return (f"{short['setting']} screened within the tolerance but was not verified: {short['why']}{games}; "
            "raise --budget")


def tried_line(t: dict[str, Any], s: Search | None = None) -> str:
    """One series of the search in words: ``screen {'ghoul.max_hp': 35}: 43.0 % [33.7, 52.8] over 100 games``."""
    budget = ""
    if s is not None:  # progress for a log: the budget used, the rate and the time so far
        seconds = time.perf_counter() - s.started
        budget = f"[{s.games:,}/{s.budget:,} games, {seconds:,.0f} s, {s.games / max(seconds, 1e-9):,.0f} games/s] "
    return (f"{budget}{t['phase']:7} {t['setting']}: {rate(t['win_rate'], *t['interval95'], digits=1)} over "
            f"{t['games']} games (seeds from {t['first_seed']})")


def write_balance(summary: dict[str, Any], out: Path) -> Path:
    """A fresh run folder with summary.json and, when a setting was found, tuned.yaml and the report."""
    folder = run_folder(out, summary["encounter"])
    tuned = summary.pop("_tuned", None)
    series = summary.pop("_series", None)
    if tuned is not None:
        (folder / "tuned.yaml").write_text(f"# tuned by trpg-arena balance: {', '.join(summary['knobs'])} -> "
                                           f"{summary['setting']}\n" + yaml.safe_dump(tuned, sort_keys=False),
                                           encoding="utf-8")
    if series is not None:
        lo, hi = summary["verified_interval95"]
        extra = {"status": f"side {summary['side']} wins {rate(summary['verified_win_rate'], lo, hi, digits=1)}",
                 "message": f"target {pct(summary['target'])} +/- {100 * summary['tolerance']:.0f} points, setting "
                            f"{summary['setting']}, verified on fresh seeds; {summary['games']} games searched "
                            f"in {summary['seconds']} s"}
        write_report(folder, f"balance {summary['encounter']}", [series], [extra])
    summary["folder"] = str(folder)
    (folder / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return folder
