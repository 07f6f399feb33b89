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
from trpg_arena.rules.investigator.verbs import Verb

SIMPLE = (Verb.END_TURN, Verb.WAIT, Verb.DECLINE, Verb.DODGE, Verb.FIGHT_BACK, Verb.NO_DEFENSE, Verb.DIVE_FOR_COVER,
          Verb.STAND_UP, Verb.RELOAD, Verb.FLEE, Verb.CONTINUE_CAST)
STEP_FORMS: tuple[tuple[str, str], ...] = (("", ""),) + tuple((w, d) for w in ("before", "after") for d in DIRS)
FORM_INDEX: dict[tuple[str, str], int] = {f: i for i, f in enumerate(STEP_FORMS)}
FORMED = frozenset(("melee", "shoot", "cast"))  # verbs offered in every step form (`Catalogue.forms`)


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
    """An action decoded into its parts: the typed reading of its ``"+"``-joined option string, per verb.

    The rules (`flow.apply`) and the tactics read these fields, never the option string itself.
    """

    verb: Verb
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
        self.attack_keys: dict[Action, Any] = {}  # what the tactics key an attack's estimate by, filled by them
        self.shot_odds: dict[tuple[Any, ...], Any] = {}  # the odds of the shots the tactics weigh, filled by them
        self.shot_qualities: dict[tuple[Any, ...], Any] = {}  # a ranged kit's shot quality by distance and best, same
        # (the grid, the distance of every two of its cells, each cell's farthest), the same
        self.square_distances: Any = None
        self.move_cells: Any = None  # (the grid, each step's and long move's cell index on it), the same
        self._build(setup)
        self.moves: dict[Any, Action] = {k[1]: a for k, a in self.by.items() if k[0] == "move"}
        self.steps: dict[Any, Action] = {k[1]: a for k, a in self.by.items() if k[0] == "step"}

    def _add(self, key: tuple[Any, ...], action: Action, meta: Meta) -> None:
        if key in self.by:
            return
        self.by[key] = action
        self.meta[action] = meta
        self.actions.append(action)
        if key[0] in FORMED:  # its place among the forms of its attack or cast (the first one added fills the rest)
            fk = (key[0], meta.target, meta.head, *((meta.shots,) if key[0] == "shoot" else ()))
            self.forms.setdefault(fk, [action] * len(STEP_FORMS))[FORM_INDEX[(meta.when, meta.dir)]] = action

    def _build(self, s: Setup) -> None:
        opt = s.opt
        for v in SIMPLE:
            self._add((v,), Action(v), Meta(v))
        for t in s.techniques:
            self._add(("prepare", t), Action(Verb.PREPARE, option=t), Meta(Verb.PREPARE, head=t))
        items = item_ids(s)
        weapons = ["unarmed"] + [i for i in items if not i.startswith(("ammo:", "material:"))]
        for w in weapons:
            self._add(("switch_weapon", w), Action(Verb.SWITCH_WEAPON, option=w), Meta(Verb.SWITCH_WEAPON, head=w))
        cells = [(x, y) for y in range(s.height) for x in range(s.width)]
        for c in cells:
            self._add(("step", c), Action(Verb.STEP, dest=c), Meta(Verb.STEP, cell=c))
        for c in cells:
            self._add(("move", c), Action(Verb.MOVE, dest=c), Meta(Verb.MOVE, cell=c))
        has_fire = any(w.kind == "firearm" for w in s.weapons.values())
        has_throw = any(w.kind == "thrown" for w in s.weapons.values())
        max_shots = max([w.shots for w in s.weapons.values() if w.kind == "firearm"] + [1])
        shot_counts = range(1, (max_shots if opt.multiple_shots else 1) + 1)
        for t in s.ids:
            for man in ("",) + MANEUVERS:
                for when, d in STEP_FORMS:
                    self._add(("melee", t, man, when, d), Action(Verb.MELEE, t, None, opt_key(man, when, d)),
                              Meta(Verb.MELEE, t, man, when, d))
            if has_fire:
                for man in ("", "disarm"):
                    for when, d in STEP_FORMS:
                        for n in shot_counts:
                            if man and n > 1:
                                continue
                            self._add(("shoot", t, man, when, d, n),
                                      Action(Verb.SHOOT, t, None, opt_key(man, when, d, n)),
                                      Meta(Verb.SHOOT, t, man, when, d, n))
            if has_throw:
                self._add(("throw", t), Action(Verb.THROW, t), Meta(Verb.THROW, t))
            self._add(("first_aid", t), Action(Verb.FIRST_AID, t), Meta(Verb.FIRST_AID, t))
            self._add(("opportunity_attack", t), Action(Verb.OPPORTUNITY_ATTACK, t), Meta(Verb.OPPORTUNITY_ATTACK, t))
            for man in ("",) + MANEUVERS:
                self._add(("pursuit_attack", t, man), Action(Verb.PURSUIT_ATTACK, t, None, man or None),
                          Meta(Verb.PURSUIT_ATTACK, t, man))
            if opt.pursuit_mode == "turn_action":
                for man in ("",) + MANEUVERS:
                    self._add(("pursue", t, man), Action(Verb.PURSUE, t, None, man or None), Meta(Verb.PURSUE, t, man))
            for sid, sp in s.spells.items():
                forms = STEP_FORMS if sp.rounds == 1 else STEP_FORMS[:1]
                for when, d in forms:
                    self._add(("cast", sid, t, when, d), Action(Verb.CAST, t, None, opt_key(sid, when, d)),
                              Meta(Verb.CAST, t, sid, when, d))
            for it in items:
                self._add(("pass_item", t, it), Action(Verb.PASS_ITEM, t, None, it), Meta(Verb.PASS_ITEM, t, it))
        for it in items:
            for d in ("here",) + tuple(DIRS):
                self._add(("pick_up", it, d), Action(Verb.PICK_UP, None, d, it), Meta(Verb.PICK_UP, head=it, dir=d))


def item_ids(s: Setup) -> list[str]:
    """Every item id that can exist in the encounter (weapon instances, ammo packs, materials), sorted."""
    enc = s.enc
    ground = enc.map.ground_items
    out = {f"{c.id}.{w}" for c in enc.combatants for w in c.weapons}.union(
        ground_weapon_id(i, g.weapon) for i, g in enumerate(ground) if g.weapon)
    ammo = set[str]().union(*(c.ammo for c in enc.combatants), (g.ammo for g in ground if g.ammo),
                            (w.ammo_type for w in s.weapons.values() if w.ammo_type))
    mats = set[str]().union(*(c.materials for c in enc.combatants), (g.material for g in ground if g.material),
                            (m for sp in s.spells.values() for m, _ in sp.materials))
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
