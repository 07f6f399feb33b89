"""Fixture F of the investigator spec (section 11.1): templates, encounter builder, action shorthands."""

from __future__ import annotations

import copy
from typing import Any

from trpg_arena.rules import Action, Combat, ScriptedDice
from trpg_arena.rules.investigator.catalogue import opt_key
from trpg_arena.rules.investigator.compiled import DIR_OF

SKILLS = {"Fighting (Brawl)": 50, "Dodge": 30, "Firearms (Handgun)": 50, "Throw": 40, "First Aid": 50}
WEAPONS = {
    "knife": {"kind": "melee", "skill": "Fighting (Brawl)", "damage": "1D4", "db_mode": "full", "impale": True},
    "club": {"kind": "melee", "skill": "Fighting (Brawl)", "damage": "1D8", "db_mode": "full"},
    "revolver": {"kind": "firearm", "skill": "Firearms (Handgun)", "damage": "1D10", "db_mode": "none",
                 "impale": True, "base_range": 3, "capacity": 6, "loaded": 6, "ammo_type": ".38",
                 "malfunction": 100},
    "tknife": {"kind": "thrown", "skill": "Throw", "damage": "1D4", "db_mode": "half", "impale": True},
    "claws": {"kind": "melee", "skill": "Fighting (Claw)", "damage": "1D6", "db_mode": "full"},
}
SPELLS = {
    "Bolt": {"mp_cost": 4, "range": 6, "target_rule": "enemy", "effect": "damage", "dice": "1D6"},
    "Hex": {"mp_cost": 3, "range": 6, "target_rule": "enemy", "effect": "damage", "dice": "1D6", "resist": "pow"},
    "Sigil": {"mp_cost": 2, "materials": {"chalk": 1}, "range": 6, "target_rule": "enemy", "effect": "damage",
              "dice": "1D3"},
    "Rapture": {"mp_cost": 6, "range": 8, "casting_rounds": 2, "target_rule": "enemy", "effect": "damage",
                "dice": "2D6"},
    "Mend": {"mp_cost": 3, "range": 1, "target_rule": "ally", "effect": "heal", "dice": "1D3"},
}


def std(cid: str, side: str, pos: tuple[int, int], dex: int | None = None, tough: bool = False,
        **kw: Any) -> dict[str, Any]:
    """A combatant from template std (or tough: max_hp 30)."""
    c: dict[str, Any] = {"id": cid, "side": side, "str": 50, "con": 50, "siz": 50, "dex": dex, "pow": 50,
                         "luck": 50, "skills": dict(SKILLS), "position": list(pos)}
    if tough:
        c["max_hp"] = 30
    skills = kw.pop("skills", None)
    if skills:
        c["skills"].update(skills)
    c.update(kw)
    return c


def encounter(*combatants: dict[str, Any], options: dict[str, Any] | None = None, map: dict[str, Any] | None = None,
              start: dict[str, Any] | None = None, z: bool | None = None) -> dict[str, Any]:
    """An encounter of fixture F; adds Z (std, side B) at (11,11) when no side-B combatant is given."""
    cs = [copy.deepcopy(c) for c in combatants]
    low = 39
    for c in cs:  # fixture F: unstated DEX is 39, 38, 37, ... in listing order
        if c["dex"] is None:
            c["dex"] = low
            low -= 1
    if z is None:
        z = not any(c["side"] == "B" for c in cs)
    if z:
        cs.append(std("Z", "B", (11, 11), dex=1))
    enc: dict[str, Any] = {"ruleset": "investigator", "encounter": "test", "weapons": copy.deepcopy(WEAPONS),
                           "spells": copy.deepcopy(SPELLS), "combatants": cs, "map": map or {"width": 12,
                                                                                                "height": 12}}
    if options:
        enc["options"] = options
    if start:
        enc["start"] = start
    return enc


def dice(*pairs: tuple[int, int]) -> ScriptedDice:
    """Scripted dice from (sides, face) pairs."""
    return ScriptedDice(list(pairs))


def d100(*faces: int) -> list[tuple[int, int]]:
    """d100 draws."""
    return [(100, f) for f in faces]


CREATED: list[Combat] = []  # scripted combats of the running test; conftest checks their dice were all used


def play(enc: dict[str, Any], script: list[tuple[int, int]] | None = None, **kw: Any) -> Combat:
    """A combat of the encounter with scripted dice (empty script: no die may be drawn).

    Every scripted die must be drawn by the end of the test (checked by this folder's conftest).
    """
    c = Combat(enc, dice=ScriptedDice(script or []), **kw)
    CREATED.append(c)
    return c


def feed(c: Combat, *faces: tuple[int, int]) -> None:
    """Append scripted faces to a running combat's dice."""
    c.dice.script.extend(faces)  # type: ignore[attr-defined]


def melee(target: str, when: str = "", frm: tuple[int, int] | None = None, to: tuple[int, int] | None = None,
          man: str = "") -> Action:
    """``melee(target, maneuver?, step=when:(to))`` where the step goes from `frm` to `to`."""
    return Action("melee", target, None, opt_key(man, when, _dir(frm, to)))


def shoot(target: str, when: str = "", frm: tuple[int, int] | None = None, to: tuple[int, int] | None = None,
          man: str = "", shots: int = 1) -> Action:
    """``shoot(target, ...)``."""
    return Action("shoot", target, None, opt_key(man, when, _dir(frm, to), shots))


def cast(spell: str, target: str, when: str = "", frm: tuple[int, int] | None = None,
         to: tuple[int, int] | None = None) -> Action:
    """``cast(spell, target, ...)``."""
    return Action("cast", target, None, opt_key(spell, when, _dir(frm, to)))


def _dir(frm: tuple[int, int] | None, to: tuple[int, int] | None) -> str:
    if frm is None or to is None:
        return ""
    return DIR_OF[(to[0] - frm[0], to[1] - frm[1])]


def step(x: int, y: int) -> Action:
    """``step(dest)``."""
    return Action("step", dest=(x, y))


def move(x: int, y: int) -> Action:
    """``move(dest)``."""
    return Action("move", dest=(x, y))


def act(verb: str, target: str | None = None, option: Any = None, dest: Any = None) -> Action:
    """Any other action."""
    return Action(verb, target, dest, option)


END = Action("end_turn")
WAIT = Action("wait")
DECLINE = Action("decline")
DODGE = Action("dodge")
FIGHT_BACK = Action("fight_back")
NO_DEFENSE = Action("no_defense")


def fighter(c: Combat, cid: str) -> Any:
    """The state of a combatant."""
    st = c.state
    return next(f for f in st.fighters if f.id == cid)  # type: ignore[attr-defined]


def events(c: Combat, kind: str) -> list[Any]:
    """Events of one kind."""
    return [e for e in c.log if e.kind == kind]


def checks(c: Combat) -> list[Any]:
    """The check events."""
    return events(c, "check")


def legal(c: Combat) -> set[Action]:
    """The legal set as a set."""
    return set(c.legal_actions())


def verbs(c: Combat) -> set[str]:
    """The verbs of the legal set."""
    return {a.verb for a in c.legal_actions()}


def turn_order(c: Combat) -> list[str]:
    """Actors of turn_start events, in order."""
    return [e.actor for e in events(c, "turn_start")]


def end_turns(c: Combat, until: str | None = None, limit: int = 200) -> None:
    """Answer every decision with end_turn / wait / decline / no_defense until `until` decides (or the end)."""
    for _ in range(limit):
        if c.over:
            return
        d = c.decision
        assert d is not None
        if until is not None and d.actor == until and d.step in ("turn_action", "phase_offer"):
            return
        leg = c.legal_actions()
        for a in (END, WAIT, DECLINE, NO_DEFENSE):
            if a in leg:
                c.act(a)
                break
        else:
            raise AssertionError(f"no passive action at {d}: {leg}")


def at_turn(c: Combat, cid: str, limit: int = 200) -> None:
    """Play passively (end_turn / wait / decline / no_defense) until `cid`'s own turn_action decision."""
    for _ in range(limit):
        d = c.decision
        assert d is not None, "the combat ended"
        if d.actor == cid and d.step == "turn_action":
            return
        leg = c.legal_actions()
        for a in (WAIT, END, DECLINE, NO_DEFENSE):
            if a in leg:
                c.act(a)
                break
        else:
            raise AssertionError(f"no passive action at {d}: {leg}")
    raise AssertionError(f"{cid}'s turn never came")


def last(c: Combat, kind: str) -> Any:
    """The last event of a kind."""
    return events(c, kind)[-1]
