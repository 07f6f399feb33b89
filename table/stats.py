"""After a combat: who dealt and took how much, hits and misses, damage per round, who fell when.

Damage is measured the one way every rule system shares: the hit points of the combatant views
(`CombatantView.hp`; kiai counts wound boxes left) before and after each decision. Each loss is
put down to the combatant who last struck at the one who lost it in that decision: an event whose
data names it as ``target`` or ``receiver``, by that event's ``source``, ``attacker`` or actor.
A loss nobody struck for (bleeding, a fall) counts under ``None``. A GM's edit (a ``gm_edit`` event)
changes hit points without anyone dealing or healing them: it is counted apart (`edits`). Hits and misses are read from
the log's attack-outcome events (`OUTCOMES`); damage dealt without one (a spell, an area) counts as a
hit. Damage the log states past the hit points that were left (`STATED`: knifeman takes 31 at 10 HP) is
kept as ``beyond``, so a report can say "10 (31 rolled, capped at the HP left)".

`session_stats` replays a `Session`'s decisions to collect them; the result is JSON-safe
(`CombatStats.to_json`). The terminal autopilot prints it and the HTTP server serves it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trpg_arena.rules import Combat, CombatantView, Event

if TYPE_CHECKING:
    from trpg_arena.table.session import Session

# Attack-outcome events of the rule systems' logs: event kind -> whether the attack hit. Each names
# its attacker (``attacker`` or the actor) and its ``target``.
OUTCOMES: dict[str, Callable[[Event], bool]] = {
    "hit": lambda e: True,  # reincarnator
    "miss": lambda e: False,
    "hit_decided": lambda e: bool(e.data.get("hit")),  # moonlit
    "attack_result": lambda e: e.data.get("result") == "hit",  # investigator
    "strike_resolved": lambda e: e.data.get("result") == "lands",  # kiai
}


def _stated(e: Event) -> tuple[str | None, int]:
    """The damage an event states for one combatant, before the hit points left cap it: (who, amount)."""
    data = e.data or {}
    if e.kind == "damage_applied" and isinstance(data.get("final"), int):  # investigator: hp may go below 0
        return e.actor, int(data["final"])
    if e.kind == "damage_applied" and isinstance(data.get("actual"), int) and isinstance(data.get("receiver"), str):
        return data["receiver"], int(data["actual"])  # moonlit: hp_after is floored at 0
    return None, 0


def damage_text(damage: int, beyond: int) -> str:
    """``10``, or ``10 (31 rolled, capped at the HP left)`` when the log states more than the HP that was left."""
    return f"{damage} ({damage + beyond} rolled, capped at the HP left)" if beyond > 0 else str(damage)


@dataclass
class FighterStats:
    """One combatant's totals."""

    id: str
    name: str
    side: str
    kind: str
    max_hp: int
    hp_start: int
    hp_end: int = 0
    status: str = ""
    dealt: int = 0
    taken: int = 0
    beyond: int = 0  # damage the log states past the hit points this combatant had left (not in `taken`)
    healed: int = 0
    hits: int = 0
    misses: int = 0
    edits: int = 0  # the GM's edits of this combatant (their changes count as nobody's damage or healing)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class Fall:
    """A combatant put out of the fight: when, how, and who struck last."""

    round: int
    decision: int
    combatant: str
    status: str
    by: str | None

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return dict(self.__dict__)


@dataclass
class CombatStats:
    """Statistics of one combat (see the module docstring); build with `collect` or `session_stats`."""

    fighters: dict[str, FighterStats] = field(default_factory=dict)
    pairs: dict[tuple[str | None, str], dict[str, int]] = field(default_factory=dict)  # (source, target) -> totals
    per_round: dict[int, dict[str, dict[str, int]]] = field(default_factory=dict)  # round -> id -> dealt/taken
    falls: list[Fall] = field(default_factory=list)
    edits: int = 0  # the GM's edits (see `_edit`)
    unrolled_hits: int = 0  # hits counted for harm no attack-outcome event judged (the decider's spell, an area)
    rounds: int = 0
    decisions: int = 0
    result: str | None = None
    termination: str | None = None

    @classmethod
    def collect(cls, start: list[CombatantView], steps: Iterable[tuple[int, list[Event], list[CombatantView]]],
                ) -> CombatStats:
        """Statistics from the views at the start and, per decision, (its round, its events, the views after it)."""
        self = cls()
        before = {v.id: v for v in start}
        for v in start:
            self._fighter(v)
        for n, (round_, events, views) in enumerate(steps):
            after = {v.id: v for v in views}
            for v in views:
                if v.id not in self.fighters:  # a summon or an arrival: it starts where it is first seen
                    self._fighter(v)
                    before.setdefault(v.id, v)
            if events and events[0].kind == "gm_edit":
                self._edit(n, round_, events[0], before, after)
                before.update(after)
                self.decisions = n + 1
                continue
            struck, shares, judged = self._read(events, after, before)
            stated: dict[str, int] = {}
            for e in events:
                who, amount = _stated(e)
                if who is not None and amount > 0:
                    stated[who] = stated.get(who, 0) + amount
            actor = next((e.actor for e in events if e.kind == "decision"), None)
            for cid, now in after.items():
                self._losses(n, round_, before[cid], now, struck.get(cid) or _enemy(actor, now, after),
                             shares.get(cid, []), stated.get(cid, 0), judged, actor)
            before.update(after)
            self.decisions = n + 1
            self.rounds = max(self.rounds, round_)
        for cid, v in before.items():
            self.fighters[cid].hp_end = v.hp
            fell = [f.status for f in self.falls if f.combatant == cid]
            # a summon out of play reads "absent" in the engine; a GM wants how it went (destroyed, vanished)
            self.fighters[cid].status = fell[-1] if fell and v.status == "absent" else v.status
        return self

    def finish(self, combat: Combat) -> CombatStats:
        """Take the result, how it ended and the rounds from the combat the decisions were read from."""
        outcome = combat.outcome
        if outcome is not None:
            self.result, self.termination, self.rounds = outcome.result, outcome.termination.value, outcome.rounds
        else:
            self.rounds = max(self.rounds, combat.round)
        return self

    def _fighter(self, v: CombatantView) -> None:
        self.fighters[v.id] = FighterStats(v.id, v.name, v.side, v.kind, v.max_hp, v.hp, v.hp, v.status)

    def _read(self, events: list[Event], views: dict[str, CombatantView], before: dict[str, CombatantView],
              ) -> tuple[dict[str, str], dict[str, list[tuple[str | None, int]]], set[tuple[str, str]]]:
        """Count a decision's hits and misses; return who last struck at whom, exact losses, pairs judged.

        A loss is exact when an event names its source and the HP after it; a pair is judged when an
        attack-outcome event names its attacker and target.
        """
        struck: dict[str, str] = {}
        judged: set[tuple[str, str]] = set()
        shares: dict[str, list[tuple[str | None, int]]] = {}
        hp = {cid: v.hp for cid, v in before.items()}
        for e in events:
            data = e.data or {}
            victim = data.get("receiver") or data.get("target")
            if not isinstance(victim, str) or victim not in views:
                continue
            by = next((s for s in (data.get("source"), data.get("attacker"), e.actor)
                       if isinstance(s, str) and s in views and s != victim), None)
            reader = OUTCOMES.get(e.kind)
            if reader is not None and by is not None:
                hit = reader(e)
                judged.add((by, victim))
                pair = self._pair(by, victim)
                pair["hits" if hit else "misses"] += 1
                if hit:
                    self.fighters[by].hits += 1
                else:
                    self.fighters[by].misses += 1
            if by is not None:
                struck[victim] = by
            hp_after = data.get("hp_after")
            changed = victim if victim in hp else data.get("combatant")
            if isinstance(hp_after, int) and changed in hp:
                delta = hp[changed] - hp_after  # > 0 harm (a striker's, a cost's), < 0 healing
                if delta:
                    shares.setdefault(changed, []).append((by if changed == victim else None, delta))
                hp[changed] = hp_after
        return struck, shares, judged

    def _edit(self, n: int, round_: int, edit: Event, before: dict[str, CombatantView],
              after: dict[str, CombatantView]) -> None:
        """A GM's edit: counted, its HP changes nobody's damage or healing, a fall it causes put down to the GM."""
        self.edits += 1
        cid = (edit.data or {}).get("combatant")
        if isinstance(cid, str) and cid in self.fighters:
            self.fighters[cid].edits += 1
        for vid, now in after.items():
            if before[vid].able and not now.able:
                self.falls.append(Fall(round_, n + 1, vid, _gone(now), "GM"))

    def _pair(self, source: str | None, target: str) -> dict[str, int]:
        return self.pairs.setdefault((source, target), {"damage": 0, "beyond": 0, "hits": 0, "misses": 0})

    def _losses(self, n: int, round_: int, was: CombatantView, now: CombatantView, by: str | None,
                shares: list[tuple[str | None, int]], stated: int = 0,
                judged: AbstractSet[tuple[str, str]] = frozenset(), actor: str | None = None) -> None:
        lost = was.hp - now.hp
        if shares and sum(delta for _, delta in shares) == lost:  # the events' own account adds up: use it
            harm = [(source, delta) for source, delta in shares if delta > 0]
            healed = -sum(delta for _, delta in shares if delta < 0)
        else:  # only the views' difference: all of it to the last striker
            harm = [(by, lost)] if lost > 0 else []
            healed = -lost if lost < 0 else 0
        self.fighters[now.id].healed += healed
        row = self.per_round.setdefault(round_, {})
        for source, part in harm:
            self.fighters[now.id].taken += part
            row.setdefault(now.id, {"dealt": 0, "taken": 0})["taken"] += part
            self._pair(source, now.id)["damage"] += part
            if source is not None:
                self.fighters[source].dealt += part
                row.setdefault(source, {"dealt": 0, "taken": 0})["dealt"] += part
                if source == actor and (source, now.id) not in judged:  # the decider's spell or area: a hit
                    self._pair(source, now.id)["hits"] += 1
                    self.fighters[source].hits += 1
                    self.unrolled_hits += 1
        lost = max(0, lost)
        if stated > lost and now.hp <= 0 and harm:  # the hit points ran out: the rest of what was rolled is capped
            self.fighters[now.id].beyond += stated - lost
            self._pair(max(harm, key=lambda h: h[1])[0], now.id)["beyond"] += stated - lost
        if was.able and not now.able:
            self.falls.append(Fall(round_, n + 1, now.id, _gone(now), by))

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form: fighters, damage by source and target, damage per round, falls and the result."""
        return {
            "result": self.result, "termination": self.termination, "rounds": self.rounds,
            "decisions": self.decisions, "edits": self.edits, "unrolled_hits": self.unrolled_hits,
            "fighters": [f.to_json() for f in self.fighters.values()],
            "by_source_and_target": [{"source": s, "target": t, **totals} for (s, t), totals in self.pairs.items()],
            "per_round": [{"round": r, "combatants": {cid: dict(v) for cid, v in row.items()}}
                          for r, row in sorted(self.per_round.items())],
            "falls": [f.to_json() for f in self.falls],
        }


def _enemy(actor: str | None, victim: CombatantView, views: dict[str, CombatantView]) -> str | None:
    """The decider, if it fights on another side than the one who lost hit points (else nobody)."""
    if actor is None or actor not in views or views[actor].side == victim.side:
        return None
    return actor


def session_stats(session: Session) -> CombatStats:
    """Statistics of a session's combat so far (its decisions replayed; the session is untouched)."""
    replay = session.replay()
    _, _, combat = next(replay)
    start = combat.combatants
    # a round as the log numbers it: reincarnator's surprise round is round 0, before round 1's initiative
    stats = CombatStats.collect(start, ((int(record["round"]), events, combat.combatants)
                                        for record, events, combat in replay if record is not None))
    return stats.finish(session.combat)


def _gone(now: CombatantView) -> str:
    """How a combatant left the fight: a summon put out of play reads "destroyed" at 0 HP, else "vanished"."""
    if now.status != "absent":
        return now.status
    return "destroyed" if now.hp <= 0 else "vanished"
