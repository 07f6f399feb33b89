"""The fixed action catalogue of an encounter and the encoding of action parameters.

Actions are ``Action(verb, target, dest, option)``:

- ``step`` / ``move``: ``dest`` = the square;
- ``melee`` / ``shoot`` / ``cast``: ``target`` = combatant, ``option`` = ``"+"``-joined parts: the maneuver
  (``knock_down``, ``disarm``, ``push``) or the spell id first, then an embedded one-step move
  ``before:<dir>`` / ``after:<dir>`` (compass direction N, NE, E, SE, S, SW, W, NW from the square the actor
  stands on when it declares), then ``x<n>`` for several shots (option ``multiple_shots``). Plain forms have
  ``option`` None (cast: just the spell id);
- ``pursue`` / ``pursuit_attack``: ``target``, ``option`` = maneuver or None; ``opportunity_attack``, ``throw``,
  ``first_aid``: ``target``;
- ``prepare``: ``option`` = technique; ``switch_weapon``: ``option`` = weapon instance id or ``unarmed``;
- ``pass_item``: ``target`` = recipient, ``option`` = item id (weapon instance id, ``ammo:<type>``,
  ``material:<name>``); ``pick_up``: ``option`` = item id, ``dest`` = direction of its square (``here`` or a
  compass direction);
- no parameters: ``end_turn``, ``wait``, ``decline``, ``dodge``, ``fight_back``, ``no_defense``,
  ``dive_for_cover``, ``stand_up``, ``reload``, ``flee``, ``continue_cast``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trpg_arena.rules.core.values import Action
from trpg_arena.rules.investigator.compiled import DIRS, MANEUVERS, Setup

SIMPLE = ("end_turn", "wait", "decline", "dodge", "fight_back", "no_defense", "dive_for_cover", "stand_up", "reload",
          "flee", "continue_cast")
STEP_FORMS: tuple[tuple[str, str], ...] = (("", ""),) + tuple((w, d) for w in ("before", "after") for d in DIRS)
FORM_INDEX: dict[tuple[str, str], int] = {f: i for i, f in enumerate(STEP_FORMS)}


def opt_key(head: str = "", when: str = "", d: str = "", shots: int = 1) -> str | None:
    """The option string of an attack/cast variant (None for the plain attack)."""
    parts = [head] if head else []
    if when:
        parts.append(f"{when}:{d}")
    if shots > 1:
        parts.append(f"x{shots}")
    return "+".join(parts) or None


@dataclass(frozen=True, slots=True)
class Meta:
    """An action decoded into its parts."""

    verb: str
    target: str = ""
    head: str = ""
    when: str = ""
    dir: str = ""
    shots: int = 1
    cell: Any = None


class Catalogue:
    """Every action that can ever be legal in one encounter, in a fixed order, with fast lookups."""

    def __init__(self, setup: Setup) -> None:
        self.actions: list[Action] = []
        self.meta: dict[Action, Meta] = {}
        self.by: dict[tuple[Any, ...], Action] = {}
        self.forms: dict[tuple[Any, ...], list[Action]] = {}  # (verb, target, head[, shots]) -> by STEP_FORMS index
        self.texts: dict[Action, str] = {}  # GM sentences, filled by the system's `describe`
        self._build(setup)
        self.moves: dict[Any, Action] = {k[1]: a for k, a in self.by.items() if k[0] == "move"}
        self.steps: dict[Any, Action] = {k[1]: a for k, a in self.by.items() if k[0] == "step"}
        for key, a in self.by.items():
            if key[0] in ("melee", "shoot", "cast"):
                verb, rest = key[0], key[1:]
                if verb == "melee":
                    t, head, when, d = rest
                    fk: tuple[Any, ...] = ("melee", t, head)
                elif verb == "shoot":
                    t, head, when, d, n = rest
                    fk = ("shoot", t, head, n)
                else:
                    head, t, when, d = rest
                    fk = ("cast", t, head)
                lst = self.forms.setdefault(fk, [a] * len(STEP_FORMS))
                lst[FORM_INDEX[(when, d)]] = a

    def _add(self, key: tuple[Any, ...], action: Action, meta: Meta) -> None:
        if key in self.by:
            return
        self.by[key] = action
        self.meta[action] = meta
        self.actions.append(action)

    def _build(self, s: Setup) -> None:
        opt = s.opt
        for v in SIMPLE:
            self._add((v,), Action(v), Meta(v))
        for t in s.techniques:
            self._add(("prepare", t), Action("prepare", option=t), Meta("prepare", head=t))
        items = item_ids(s)
        weapons = ["unarmed"] + [i for i in items if not i.startswith(("ammo:", "material:"))]
        for w in weapons:
            self._add(("switch_weapon", w), Action("switch_weapon", option=w), Meta("switch_weapon", head=w))
        cells = [(x, y) for y in range(s.height) for x in range(s.width)]
        for c in cells:
            self._add(("step", c), Action("step", dest=c), Meta("step", cell=c))
        for c in cells:
            self._add(("move", c), Action("move", dest=c), Meta("move", cell=c))
        has_fire = any(w.kind == "firearm" for w in s.weapons.values())
        has_throw = any(w.kind == "thrown" for w in s.weapons.values())
        max_shots = max([w.shots for w in s.weapons.values() if w.kind == "firearm"] + [1])
        shot_counts = range(1, (max_shots if opt.multiple_shots else 1) + 1)
        for t in s.ids:
            for man in ("",) + MANEUVERS:
                for when, d in STEP_FORMS:
                    self._add(("melee", t, man, when, d), Action("melee", t, None, opt_key(man, when, d)),
                              Meta("melee", t, man, when, d))
            if has_fire:
                for man in ("", "disarm"):
                    for when, d in STEP_FORMS:
                        for n in shot_counts:
                            if man and n > 1:
                                continue
                            self._add(("shoot", t, man, when, d, n),
                                      Action("shoot", t, None, opt_key(man, when, d, n)),
                                      Meta("shoot", t, man, when, d, n))
            if has_throw:
                self._add(("throw", t), Action("throw", t), Meta("throw", t))
            self._add(("first_aid", t), Action("first_aid", t), Meta("first_aid", t))
            self._add(("opportunity_attack", t), Action("opportunity_attack", t), Meta("opportunity_attack", t))
            for man in ("",) + MANEUVERS:
                self._add(("pursuit_attack", t, man), Action("pursuit_attack", t, None, man or None),
                          Meta("pursuit_attack", t, man))
            if opt.pursuit_mode == "turn_action":
                for man in ("",) + MANEUVERS:
                    self._add(("pursue", t, man), Action("pursue", t, None, man or None), Meta("pursue", t, man))
            for sid, sp in s.spells.items():
                forms = STEP_FORMS if sp.rounds == 1 else STEP_FORMS[:1]
                for when, d in forms:
                    self._add(("cast", sid, t, when, d), Action("cast", t, None, opt_key(sid, when, d)),
                              Meta("cast", t, sid, when, d))
            for it in items:
                self._add(("pass_item", t, it), Action("pass_item", t, None, it), Meta("pass_item", t, it))
        for it in items:
            for d in ("here",) + tuple(DIRS):
                self._add(("pick_up", it, d), Action("pick_up", None, d, it), Meta("pick_up", head=it, dir=d))


def item_ids(s: Setup) -> list[str]:
    """Every item id that can exist in the encounter (weapon instances, ammo packs, materials), sorted."""
    out: set[str] = set()
    enc = s.enc
    ammo: set[str] = set()
    mats: set[str] = set()
    for c in enc.combatants:
        out.update(f"{c.id}.{w}" for w in c.weapons)
        ammo.update(c.ammo)
        mats.update(c.materials)
    for i, g in enumerate(enc.map.ground_items):
        if g.weapon:
            out.add(ground_weapon_id(i, g.weapon))
        if g.ammo:
            ammo.add(g.ammo)
        if g.material:
            mats.add(g.material)
    for sp in s.spells.values():
        mats.update(m for m, _ in sp.materials)
    for w in s.weapons.values():
        if w.ammo_type:
            ammo.add(w.ammo_type)
    return sorted(out) + sorted(f"ammo:{a}" for a in ammo) + sorted(f"material:{m}" for m in mats)


def ground_weapon_id(index: int, template: str) -> str:
    """The instance id of a weapon the encounter places on the ground."""
    return f"ground{index}.{template}"


def catalogue_of(setup: Setup) -> Catalogue:
    """The (cached) catalogue of an encounter."""
    hit = setup.catalogue
    if hit is None:
        hit = setup.catalogue = Catalogue(setup)
    return hit
