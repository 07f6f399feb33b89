"""Fixture F of kiai.md section 11 and small helpers for scenario tests."""

from __future__ import annotations

import copy
from typing import Any

from trpg_arena.rules import Action, Combat, ScriptedDice

BASE: dict[str, Any] = {
    "hit": 60, "dodge": 40, "attack": 10, "defense": 5, "life": 10, "agility": 12, "quickness": 12,
    "dexterity": 10, "strength": 10, "resistance": 10, "intelligence": 10, "initiative": 5,
    "magic_attack": 50, "magic_defense": 20, "kiai": 10, "quick_attack": 0,
    "weapons": [{"id": "sword", "name": "Sword", "level": 2, "category": "sword", "hands": 1, "reach": 1}],
    "main": "sword", "off_hand": None, "armour": {"name": "armour", "level": 1}, "abilities": [],
}
WEAPONS = {
    "dagger": {"id": "dagger", "level": 1, "category": "dagger", "hands": 1, "reach": 1},
    "spear": {"id": "spear", "level": 2, "category": "spear", "hands": 2, "reach": 1},
    "lance": {"id": "lance", "level": 2, "category": "lance", "hands": 2, "reach": 1},
    "pike": {"id": "pike", "level": 2, "category": "spear", "hands": 2, "reach": 2},
    "axe": {"id": "axe", "level": 3, "category": "axe", "hands": 2, "reach": 1},
}
ABILITIES = {
    "flash_cut": {"id": "flash_cut", "kind": "technique", "level": 3, "effect": "damage", "delivery": "melee"},
    "fire_burst": {"id": "fire_burst", "kind": "spell", "level": 2, "effect": "damage", "delivery": "area",
                   "range": 6},
    "dark_bolt": {"id": "dark_bolt", "kind": "spell", "level": 2, "effect": "damage", "delivery": "ranged",
                  "range": 8},
    "sleep": {"id": "sleep", "kind": "spell", "level": 2, "effect": "stun", "delivery": "ranged", "range": 6},
    "paralyse": {"id": "paralyse", "kind": "spell", "level": 1, "effect": "stun", "delivery": "touch"},
    "shout": {"id": "shout", "kind": "technique", "level": 2, "effect": "intimidate", "delivery": "ranged",
              "range": 4},
    "mirage": {"id": "mirage", "kind": "technique", "level": 1, "effect": "illusion", "delivery": "ranged",
               "range": 4},
    "stunning_blow": {"id": "stunning_blow", "kind": "technique", "level": 1, "effect": "stun", "delivery": "melee"},
}


def fighter(cid: str, side: str, seat: int, pos: list[int], **over: Any) -> dict[str, Any]:
    """A copy of A's numbers and gear with overrides (extra weapons / abilities by name)."""
    d = copy.deepcopy(BASE)
    d.update(id=cid, name=cid, side=side, seat=seat, position=pos)
    extra_w = over.pop("extra_weapons", [])
    d["weapons"] = d["weapons"] + [copy.deepcopy(WEAPONS[w]) for w in extra_w]
    d["abilities"] = [copy.deepcopy(ABILITIES[a]) for a in over.pop("knows", [])]
    d.update(over)
    if d.get("seat", 0) is None:
        del d["seat"]
    return d


def fixture(a: dict[str, Any] | None = None, b: dict[str, Any] | None = None, *, extra: list[dict[str, Any]] = (),
            options: dict[str, Any] | None = None, start: dict[str, Any] | None = None,
            map: dict[str, Any] | None = None, order: list[str] | None = None,
            current: str | None = None) -> dict[str, Any]:
    """Fixture F: A (side P, seat 0, [2,0]) against B (side N, seat 1, [3,0]) on a 10 x 6 map, at A's D1."""
    a = {"seat": 0, "pos": [2, 0], **(a or {})}
    b = {"seat": 1, "pos": [3, 0], **(b or {})}
    if "position" in a:
        a["pos"] = a.pop("position")
    if "position" in b:
        b["pos"] = b.pop("position")
    combatants = [fighter("A", "P", **a), fighter("B", "N", **b), *extra]
    enc: dict[str, Any] = {
        "ruleset": "kiai", "encounter": "fixture_f", "map": {"layout": "hex_odd_r", "width": 10, "height": 6},
        "combatants": combatants, "options": dict(options or {}),
    }
    if map:
        enc["map"].update(map)
    if start is not False:
        st = {"round": 1, "order": order or [c["id"] for c in combatants], "current": current}
        st.update(start or {})
        if st["current"] is None:
            st.pop("current")
        enc["start"] = st
    return enc


def dice(text: str) -> ScriptedDice:
    """``"d100=35 d10=7"`` -> ScriptedDice([(100, 35), (10, 7)])."""
    pairs = []
    for tok in text.split():
        sides, face = tok.lstrip("d").split("=")
        pairs.append((int(sides), int(face)))
    return ScriptedDice(pairs)


def play(enc: dict[str, Any], script: str, *actions: Action) -> Combat:
    """Build the combat with scripted dice and take the actions in order."""
    c = Combat(enc, dice=dice(script))
    for a in actions:
        c.act(a)
    return c


def atk(target: str, x: int = 0, all_out: bool = False, ability: str = "") -> Action:
    """`attack(target)` with its option tuple."""
    return Action("attack", target, None, (x, all_out, ability))


def fighter_state(c: Combat, cid: str) -> Any:
    """The rules state of one combatant."""
    return c.state.fighters[cid]  # type: ignore[attr-defined]


def wounds(c: Combat, cid: str) -> dict[str, int]:
    """Checked boxes by level, without empty levels."""
    w = c.state.fighters[cid].wounds  # type: ignore[attr-defined]
    return {n: k for n, k in zip(("light", "moderate", "serious", "mortal"), w) if k}


def kinds(c: Combat) -> set[str]:
    """Verbs of the current legal set."""
    return {a.verb for a in c.legal_actions()}


DODGE = Action("dodge")
NO_REACTION = Action("no_reaction")
END = Action("end_turn")
PASS = Action("pass")
