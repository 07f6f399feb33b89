"""Scenario builders for moonlit tests: the spec's fixture conventions (section 11) as code."""

from __future__ import annotations

from typing import Any

from trpg_arena.rules import Action, Combat, Event, ScriptedDice

BASE: dict[str, Any] = dict(body=3, action=4, melee=3, ranged=3, mental=3, defense=2, max_hp=50, max_tp=30,
                            emotion=15)
STAT_KEYS = {"body", "action", "melee", "ranged", "mental", "defense", "max_hp", "max_tp", "emotion", "attributes",
             "skills", "weapon", "armour", "items", "can_escape", "hp", "tp", "conditions", "name", "kind"}
START_KEYS = {"state", "ap", "ap_roll", "zone", "markers", "pending", "effects", "usage", "rebirth_used"}


def F(cid: str, zone: str | None = None, **kw: Any) -> dict[str, Any]:
    """A fixture combatant: ids starting with A are side A pcs, B side B npcs."""
    return {"id": cid, "zone": zone, **kw}


def encounter(fighters: list[dict[str, Any]], *, step: str | None = "main", round: int = 1,
              options: dict[str, Any] | None = None, start: dict[str, Any] | None = None,
              **extra: Any) -> dict[str, Any]:
    """An encounter dict following the fixture conventions."""
    combatants = []
    starts: dict[str, Any] = {}
    for f in fighters:
        cid = f["id"]
        side = cid[0]
        c: dict[str, Any] = {"id": cid, "side": side, "kind": "pc" if side == "A" else "npc", **BASE}
        c["zone"] = f"{side}_front"
        s: dict[str, Any] = {}
        for k, v in f.items():
            if k == "id":
                continue
            if k in STAT_KEYS:
                c[k] = v
            elif k in START_KEYS:
                if v is not None:
                    s[k] = v
            else:
                raise KeyError(k)
        if f.get("zone") is None:
            s["zone"] = c["zone"]
        if "hp" in c and "max_hp" not in f:
            pass
        combatants.append(c)
        starts[cid] = s
    enc: dict[str, Any] = {"ruleset": "moonlit", "encounter": "scenario", "combatants": combatants,
                           "options": options or {}}
    if step is not None:
        st = {"round": round, "step": step, "combatants": {k: v for k, v in starts.items() if v}}
        st.update(start or {})
        enc["start"] = st
    else:
        # fresh start at round 1 setup: zones must be own-side ones
        for c, f in zip(combatants, fighters):
            if f.get("zone"):
                c["zone"] = f["zone"]
    enc.update(extra)
    return enc


def combat(fighters: list[dict[str, Any]], dice: list[int] | tuple[int, ...] = (), **kw: Any) -> Combat:
    """A combat over scripted d6 faces."""
    return Combat(encounter(fighters, **kw), dice=ScriptedDice.d(6, *dice) if dice else ScriptedDice([]))


def add_dice(c: Combat, *faces: int) -> None:
    """Append more scripted d6 faces."""
    d = c.dice
    assert isinstance(d, ScriptedDice)
    d.script.extend((6, f) for f in faces)


def used_up(c: Combat) -> bool:
    """Whether every scripted roll was consumed."""
    d = c.dice
    assert isinstance(d, ScriptedDice)
    return d.remaining == 0


def act(c: Combat, verb: str, target: str | None = None, dest: Any = None, option: Any = None) -> list[Event]:
    """Act for the current decider."""
    return c.act(Action(verb, target, dest, option))


def legal(c: Combat) -> set[str]:
    """The legal set as describe() strings."""
    return {a.describe() for a in c.legal_actions()}


def legal_of(c: Combat, verb: str) -> set[str]:
    """Legal actions of one verb as describe() strings."""
    return {a.describe() for a in c.legal_actions() if a.verb == verb}


def f(c: Combat, cid: str) -> Any:
    """The mutable state of one combatant."""
    return c.state.fighters[cid]  # type: ignore[attr-defined]


def events(c: Combat, kind: str, since: int = 0) -> list[Event]:
    """Events of a kind."""
    return [e for e in c.log[since:] if e.kind == kind]


def rolls(c: Combat, since: int = 0) -> list[list[int]]:
    """Dice of every roll event."""
    return [e.data["dice"] for e in c.log[since:] if e.kind == "roll"]


def who(c: Combat) -> str | None:
    """The current decider."""
    return c.decision.actor if c.decision else None
