"""Procedural encounters per rule system: seeded maps, combatant mixes and stats, validated like any file.

`generate(ruleset, seed)` builds an encounter from the system's own data: the stat blocks of its
built-in encounters and its stat-block libraries (kiai's ``statblocks.yaml``, reincarnator's
``stat_blocks.yaml``; moonlit's skill and equipment libraries for fighters built from scratch),
with their numbers jittered by up to a fifth, on a fresh map (random size, terrain and obstacles)
with one to four combatants a side placed on their own half. The same seed always gives the same
encounter. The held-out encounters of ``tests/unseen`` are never read: they measure how a learned
value generalises to fights it has not seen.
"""

from __future__ import annotations

import copy
import zlib
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from trpg_arena.rules import EncounterBase, builtin_encounters, get_ruleset, load_encounter
from trpg_arena.rules.core.features import layout_for

Data = dict[str, Any]
SIDE_SIZES = (1, 2, 3, 4)
SIDE_WEIGHTS = (0.3, 0.3, 0.25, 0.15)


@cache
def builtin_files(ruleset: str) -> tuple[Data, ...]:
    """The raw YAML data of a system's built-in encounters (never the held-out ones under tests/)."""
    system = get_ruleset(ruleset)
    folder = system.info.data_dir / "encounters"
    return tuple(yaml.safe_load((folder / f"{n.split('/', 1)[1]}.yaml").read_text(encoding="utf-8"))
                 for n in builtin_encounters(system))


@cache
def library(ruleset: str, name: str) -> Data:
    """One of a system's data files (``data/<name>.yaml``)."""
    path = Path(get_ruleset(ruleset).info.data_dir) / "data" / f"{name}.yaml"
    return dict(yaml.safe_load(path.read_text(encoding="utf-8")))


def builtin_combatants(ruleset: str) -> list[Data]:
    """Every combatant of the built-in encounters, as written."""
    return [c for data in builtin_files(ruleset) for c in data["combatants"]]


def jitter(rng: np.random.Generator, value: int, lo: int, hi: int, spread: float = 0.2) -> int:
    """`value` times a factor within 1 +- spread, rounded and kept in [lo, hi]."""
    return int(min(hi, max(lo, round(value * rng.uniform(1 - spread, 1 + spread)))))


def side_sizes(rng: np.random.Generator) -> tuple[int, int]:
    """Combatants on each of the two sides (independent draws: uneven fights are data too)."""
    a, b = rng.choice(SIDE_SIZES, size=2, p=SIDE_WEIGHTS)
    return int(a), int(b)


def free_cells(rng: np.random.Generator, cells: list[tuple[int, int]], n: int) -> list[tuple[int, int]]:
    """`n` distinct cells drawn from `cells`."""
    picks = rng.choice(len(cells), size=n, replace=False)
    return [cells[int(i)] for i in picks]


# --- moonlit --------------------------------------------------------------------------------------

def _moonlit_fighter(rng: np.random.Generator) -> Data:
    """A fighter built from the skill and equipment libraries (spec 4.1 ranges)."""
    from trpg_arena.rules.moonlit.data import GEAR, ITEMS, SKILLS

    by: dict[tuple[str, str | None], list[str]] = {}
    for sid, sk in SKILLS.items():
        by.setdefault((sk.category, sk.type), []).append(sid)
    kind = str(rng.choice(["melee", "ranged", "mental"]))
    attacks = sorted(rng.choice(by[("attack", kind)], size=int(rng.integers(1, 3)), replace=False).tolist())
    extra_pool = [s for cat in ("offense", "defense", "setup", "normal", "end") for s in by.get((cat, None), [])]
    extras = sorted(rng.choice(extra_pool, size=int(rng.integers(0, 4)), replace=False).tolist())
    weapons = [g for g, gear in GEAR.items() if gear.slot == "weapon" and gear.type == (kind if kind != "mental"
                                                                                           else "melee")]
    stat = {"melee": 0, "ranged": 0, "mental": 0}
    stat[kind] = int(rng.integers(3, 7))
    items = sorted(rng.choice(sorted(ITEMS), size=int(rng.integers(0, 2)), replace=False).tolist())
    return {"body": int(rng.integers(1, 6)), "action": int(rng.integers(2, 8)),
            "melee": stat["melee"] or int(rng.integers(0, 3)), "ranged": stat["ranged"] or int(rng.integers(0, 3)),
            "mental": stat["mental"] or int(rng.integers(0, 3)), "defense": int(rng.integers(0, 4)),
            "max_hp": int(rng.integers(25, 61)), "max_tp": int(rng.integers(10, 51)),
            "emotion": int(rng.integers(0, 31)), "skills": [*attacks, *extras],
            "weapon": str(rng.choice(weapons)) if weapons and rng.random() < 0.7 else None,
            "armour": "reinforced_coat" if rng.random() < 0.3 else None, "items": {i: 1 for i in items}}


def moonlit(rng: np.random.Generator) -> Data:
    """Two sides on the four-zone line; fighters from the built-ins or from the libraries."""
    pool = builtin_combatants("moonlit")
    combatants = []
    for side, n in zip(("A", "B"), side_sizes(rng)):
        for j in range(n):
            if rng.random() < 0.5:
                c = {k: v for k, v in copy.deepcopy(pool[int(rng.integers(len(pool)))]).items()
                     if k not in ("hp", "tp", "conditions", "name", "zone", "side", "id", "kind")}
                for stat, lo, hi in (("body", 0, 10), ("action", 1, 10), ("melee", 0, 10), ("ranged", 0, 10),
                                     ("mental", 0, 10), ("max_hp", 1, 300), ("max_tp", 0, 200)):
                    if stat in c:
                        c[stat] = jitter(rng, int(c[stat]), lo, hi)
            else:
                c = _moonlit_fighter(rng)
            c.update(id=f"{side.lower()}{j + 1}", side=side, kind="pc" if side == "A" else "npc",
                     zone=f"{side}_{'front' if rng.random() < 0.6 else 'rear'}")
            combatants.append(c)
    return {"ruleset": "moonlit", "map": "default", "combatants": combatants}


# --- kiai -----------------------------------------------------------------------------------------

def kiai(rng: np.random.Generator) -> Data:
    """A hex field with boulders and difficult ground; fighters from the built-ins and the stat-block library."""
    width, height = int(rng.integers(8, 15)), int(rng.integers(6, 11))
    cells = [(c, r) for r in range(height) for c in range(width)]
    inner = [h for h in cells if 2 <= h[0] < width - 2]
    n_blocked, n_difficult = int(rng.integers(0, 6)), int(rng.integers(0, 9))
    rough = free_cells(rng, inner, n_blocked + n_difficult)
    blocked, difficult = rough[:n_blocked], rough[n_blocked:]
    pool = builtin_combatants("kiai")
    templates = sorted(library("kiai", "statblocks"))
    combatants = []
    taken = set(blocked)
    for s, (side, n) in enumerate(zip(("east", "west"), side_sizes(rng))):
        cols = range(0, max(2, width // 3)) if s == 0 else range(width - max(2, width // 3), width)
        spots = [h for h in cells if h[0] in cols and h not in taken]
        for j, pos in enumerate(free_cells(rng, spots, n)):
            taken.add(pos)
            if rng.random() < 0.5:
                c = {k: v for k, v in copy.deepcopy(pool[int(rng.integers(len(pool)))]).items()
                     if k not in ("name", "seat", "position", "side", "id", "kind")}
            else:
                c = {"template": str(rng.choice(templates))}
                base = library("kiai", "statblocks")[c["template"]]
                c.update({k: base[k] for k in ("hit", "dodge", "attack", "defense", "life") if k in base})
            for stat, hi in (("hit", 200), ("dodge", 200), ("attack", 200), ("defense", 200)):
                if stat in c:
                    c[stat] = jitter(rng, int(c[stat]), 0, hi)
            if "life" in c:
                c["life"] = jitter(rng, int(c["life"]), 1, 200)
            c.update(id=f"{side}{j + 1}", side=side, kind="pc" if s == 0 else "npc", position=list(pos))
            combatants.append(c)
    return {"ruleset": "kiai", "map": {"layout": "hex_odd_r", "width": width, "height": height,
                                       "blocked": [list(h) for h in blocked],
                                       "difficult": [list(h) for h in difficult]},
            "combatants": combatants}


# --- investigator ---------------------------------------------------------------------------------

def investigator(rng: np.random.Generator) -> Data:
    """A room of squares with walls, obstacles and difficult floor; people and creatures from the built-ins."""
    width, height = int(rng.integers(8, 15)), int(rng.integers(6, 12))
    cells = [(x, y) for y in range(height) for x in range(width)]
    inner = [c for c in cells if 2 <= c[0] < width - 2]
    counts = [int(rng.integers(0, 4)), int(rng.integers(0, 5)), int(rng.integers(0, 7))]
    rough = free_cells(rng, inner, sum(counts))
    wall, obstacle, difficult = rough[:counts[0]], rough[counts[0]:counts[0] + counts[1]], rough[counts[0] + counts[1]:]
    weapons: Data = {}
    for data in builtin_files("investigator"):
        for wid, w in (data.get("weapons") or {}).items():
            weapons.setdefault(wid, w)
    pool = builtin_combatants("investigator")
    combatants = []
    taken = set(wall) | set(obstacle)
    for s, (side, n) in enumerate(zip(("investigators", "cult"), side_sizes(rng))):
        cols = range(0, max(2, width // 3)) if s == 0 else range(width - max(2, width // 3), width)
        spots = [c for c in cells if c[0] in cols and c not in taken]
        for j, pos in enumerate(free_cells(rng, spots, n)):
            taken.add(pos)
            c = {k: v for k, v in copy.deepcopy(pool[int(rng.integers(len(pool)))]).items()
                 if k not in ("name", "position", "side", "id", "kind", "start")}
            for stat in ("str", "con", "siz", "dex", "pow"):
                if stat in c:
                    c[stat] = jitter(rng, int(c[stat]), 1, 400, 0.15)
            c["skills"] = {k: jitter(rng, int(v), 1, 99, 0.15) for k, v in (c.get("skills") or {}).items()}
            c.pop("max_hp", None)  # derived from CON and SIZ again, after the jitter
            if s == 0:
                c.setdefault("luck", int(rng.integers(30, 80)))  # investigators (PCs) spend luck
            c.update(id=f"{'inv' if s == 0 else 'cult'}{j + 1}", side=side, kind="pc" if s == 0 else "npc",
                     position=list(pos))
            combatants.append(c)
    return {"ruleset": "investigator", "options": {"round_cap": 20},
            "map": {"width": width, "height": height,
                    "terrain": {"wall": [list(c) for c in wall], "obstacle": [list(c) for c in obstacle],
                                "difficult": [list(c) for c in difficult]}},
            "weapons": weapons, "combatants": combatants}


# --- reincarnator ---------------------------------------------------------------------------------

def reincarnator(rng: np.random.Generator) -> Data:
    """A yard of 1 m squares with walls, crates and rough ground; fighters from the built-ins and the library."""
    width, height = int(rng.integers(10, 19)), int(rng.integers(8, 15))
    cells = [(x, y) for y in range(height) for x in range(width)]
    inner = [c for c in cells if 3 <= c[0] < width - 3]
    counts = [int(rng.integers(0, 5)), int(rng.integers(0, 5)), int(rng.integers(0, 7))]
    rough = free_cells(rng, inner, sum(counts))
    wall, crates, difficult = rough[:counts[0]], rough[counts[0]:counts[0] + counts[1]], rough[counts[0] + counts[1]:]
    spec_cells: list[Data] = [{"at": list(c), "terrain": "wall"} for c in wall]
    spec_cells += [{"at": list(c), "object": {"name": "crate", "cover": int(rng.integers(2, 4))}} for c in crates]
    spec_cells += [{"at": list(c), "terrain": "difficult"} for c in difficult]
    pool = [c for c in builtin_combatants("reincarnator") if not c.get("in_vehicle")]
    blocks = sorted(library("reincarnator", "stat_blocks"))
    combatants = []
    taken = set(wall) | set(crates)
    for s, (side, n) in enumerate(zip(("blue", "red"), side_sizes(rng))):
        cols = range(0, max(3, width // 4)) if s == 0 else range(width - max(3, width // 4), width)
        spots = [c for c in cells if c[0] in cols and c not in taken]
        for j, pos in enumerate(free_cells(rng, spots, n)):
            taken.add(pos)
            if rng.random() < 0.5:
                c = {k: v for k, v in copy.deepcopy(pool[int(rng.integers(len(pool)))]).items()
                     if k not in ("name", "position", "side", "id", "kind", "start", "in_vehicle")}
            else:
                c = {"stat_block": str(rng.choice(blocks))}
            if "attributes" in c:
                c["attributes"] = {k: jitter(rng, int(v), 0, 30) for k, v in c["attributes"].items()}
            if "base_defense" in c:
                c["base_defense"] = jitter(rng, int(c["base_defense"]), 0, 30)
            c.update(id=f"{side}{j + 1}", side=side, kind="pc" if s == 0 else "npc", position=list(pos))
            combatants.append(c)
    return {"ruleset": "reincarnator", "options": {"round_cap": 20},
            "map": {"width": width, "height": height, "cells": spec_cells}, "combatants": combatants}


GENERATORS: dict[str, Callable[[np.random.Generator], Data]] = {
    "moonlit": moonlit, "kiai": kiai, "investigator": investigator, "reincarnator": reincarnator,
}
ATTEMPTS = 20  # draws tried per seed before giving up (a draw the validator refuses is skipped, seeded)


def generate(ruleset: str, seed: int) -> EncounterBase:
    """The procedural encounter `seed` of a rule system, validated (the same seed, the same encounter)."""
    make = GENERATORS.get(ruleset)
    if make is None:
        get_ruleset(ruleset)  # an unknown id: the registry's error
        raise ValueError(f"no encounter generator for '{ruleset}' (have: {', '.join(GENERATORS)})")
    rng = np.random.default_rng([zlib.crc32(ruleset.encode()), seed])
    last: Exception | None = None
    for _ in range(ATTEMPTS):
        data = make(rng)
        data["encounter"] = f"generated_{seed}"
        data["description"] = f"Procedural {ruleset} encounter {seed} (trpg_arena.experiments.selfplay.generate)."
        try:
            enc = load_encounter(data, source=f"generated:{ruleset}:{seed}")
            layout_for(ruleset).check(enc)  # every summon and arrival fits the feature layout
            return enc
        except ValueError as e:  # EncounterError, FeatureLimitError: draw again from the same stream
            last = e
    raise ValueError(f"{ruleset}: no valid encounter after {ATTEMPTS} draws for seed {seed}: {last}")
