"""Fixtures for the reincarnator acceptance scenarios (spec section 11.1)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from trpg_arena.agents import RandomAgent, make_agent
from trpg_arena.rules import Action, Combat, ScriptedDice

PISTOL = {"id": "pistol", "kind": "firearm", "damage": 2, "damage_type": "lethal", "specialty": "pistols", "size": 1,
          "range_m": 30, "ammo": {"capacity": 10, "loaded": 10, "spares": 1, "reload_kind": "magazine"}}
TKNIFE = {"id": "tknife", "kind": "thrown", "damage": 1, "damage_type": "lethal", "size": 1}
SWORD = {"id": "sword", "kind": "melee", "damage": 2, "damage_type": "lethal", "specialty": "swords", "size": 2,
         "reach": 1}


def H(cid: str, side: str, pos: tuple[int, int] | None, **over: Any) -> dict[str, Any]:
    """Fixture H (a trained human) with overrides; `items` replaces the sword."""
    c: dict[str, Any] = {"id": cid, "side": side, "stat_block": "human"}
    if pos is not None:
        c["position"] = list(pos)
    c.update(over)
    return c


def item(base: dict[str, Any], **over: Any) -> dict[str, Any]:
    """A copy of an item definition with overrides (nested ``ammo`` merged)."""
    out = copy.deepcopy(base)
    ammo = over.pop("ammo", None)
    out.update(over)
    if ammo:
        out["ammo"] = {**out.get("ammo", {}), **ammo}
    return out


def encounter(*combatants: dict[str, Any], width: int = 12, height: int = 12, cells: list[Any] | None = None,
              items: list[Any] | None = None, options: dict[str, Any] | None = None,
              start: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """An encounter dict on an open map (12 x 12 unless told)."""
    enc: dict[str, Any] = {"ruleset": "reincarnator", "encounter": "test", "map": {"width": width, "height": height,
                                                                                   "cells": cells or [],
                                                                                   "items": items or []},
                           "combatants": list(combatants), "options": options or {}}
    if start is not None:
        enc["start"] = start
    enc.update(extra)
    return enc


def defaults(*more: dict[str, Any], a: dict[str, Any] | None = None, d: dict[str, Any] | None = None) -> list[Any]:
    """A (side P) at (5,5) and D (side N) at (6,5), then others."""
    return [H("A", "P", (5, 5), **(a or {})), H("D", "N", (6, 5), **(d or {})), *more]


def at_turn(order: list[str], actor: str = "A", round: int = 1, **per: dict[str, Any]) -> dict[str, Any]:
    """A ``start`` section: the actor's first decision point in `round`."""
    return {"round": round, "order": order, "actor": actor, "combatants": per}


def dice(*faces: int | tuple[int, int]) -> ScriptedDice:
    """Scripted dice: bare ints are d10 faces, tuples are (sides, face)."""
    return ScriptedDice([f if isinstance(f, tuple) else (10, f) for f in faces])


CREATED: list[Combat] = []  # combats of the running test; conftest checks every script was used up


def combat(enc: dict[str, Any], *faces: int | tuple[int, int], **kw: Any) -> Combat:
    """A combat with scripted dice (the test fails if any scripted die is left unrolled)."""
    c = Combat(enc, dice=dice(*faces), **kw)
    CREATED.append(c)
    return c


def has(c: Combat, verb: str, target: str | None = None, dest: Any = None, option: Any = None) -> bool:
    """Whether this exact action is legal now."""
    return Action(verb, target, dest, option) in set(c.legal_actions())


def verbs(c: Combat) -> set[str]:
    """Verbs present in the mask."""
    return {a.verb for a in c.legal_actions()}


def act(c: Combat, verb: str, target: str | None = None, dest: Any = None, option: Any = None) -> list[Any]:
    """Take an action (must be legal)."""
    return c.act(Action(verb, target, dest, option))


def kinds(c: Combat, kind: str, since: int = 0) -> list[Any]:
    """Events of a kind."""
    return [e for e in c.log[since:] if e.kind == kind]


def rolls(c: Combat, since: int = 0) -> list[Any]:
    """`roll` events."""
    return kinds(c, "roll", since)


def F(c: Combat, cid: str) -> Any:
    """The fighter state."""
    return c.state.fighters[cid]  # type: ignore[attr-defined]


def own_turn_states() -> Iterator[tuple[Combat, Any]]:
    """Every state of six seeded games (scripted against random, skirmish and brawl) where a fighter chooses its
    own action (not an attack's defence or a grapple's resistance), with its decision; play goes on after each."""
    for name, seeds in (("reincarnator/skirmish", range(4)), ("reincarnator/brawl", range(2))):
        for seed in seeds:
            c = Combat(name, seed=seed)
            agents = {s: (make_agent("scripted", "reincarnator", seed=seed + i) if i % 2 == 0 else RandomAgent(seed=i))
                      for i, s in enumerate(c.sides)}
            while not c.over:
                d = c.decision
                assert d is not None
                if d.step not in ("attack_declared", "grapple_resist"):
                    yield c, d
                c.act(agents[c.side_of(d.actor)].act(c))
