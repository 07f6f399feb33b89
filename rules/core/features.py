"""Named, encounter-independent features of a position, seen from one side (what learned values read).

Every rule system describes a position in one fixed layout that does not depend on the encounter, so
a model trained on some encounters can score any other encounter of the system::

    from trpg_arena.rules.core.features import FeatureLayout, layout_for, encode

    layout = layout_for("kiai")         # names, size, limits, fingerprint
    x = encode(combat, side)            # float32 vector of layout.size, from `side`'s point of view

The vector is the global features, then one *row* per entity: the actor, its allies, its enemies.

- **The actor** is the combatant whose decision is pending when it is on `side`. When the decider is
  on another side (or the combat is over), the actor is `side`'s combatant nearest to the decider
  (able ones first, then roster order); with no decider, `side`'s first able combatant (roster order).
  The decider is always marked by the ``is_decider`` column of its row.
- **Allies** are the other combatants of `side`, **enemies** every combatant of the other sides; each
  group is sorted able first, then by distance to the actor, then roster order, and padded with
  rows of zeros up to the limits (`FeatureLayout.limits`). An encounter with more combatants on a
  side than the layout holds raises `FeatureLimitError`.
- A row is the kernel's columns (presence, health, relations to the actor: distance, line of sight,
  reach, threat), then the system's static stats, then its `observe_combatant` features.

Each system declares its part in ``rules/<id>/features.py`` as a `SystemFeatures` named ``FEATURES``;
``docs/features/<id>.md`` is generated from it (`markdown`, ``trpg-arena features ID``).
"""

from __future__ import annotations

import hashlib
import importlib
import struct
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from trpg_arena.rules.core.compiled import compiled
from trpg_arena.rules.core.encounter import EncounterBase
from trpg_arena.rules.core.errors import TrpgArenaError
from trpg_arena.rules.core.library import read_table
from trpg_arena.rules.core.system import CombatantView, RuleSystem, get_ruleset
from trpg_arena.rules.core.values import DecisionKind

if TYPE_CHECKING:
    from trpg_arena.rules.core.combat import Combat

FEATURES_VERSION = 1  # bumped when the kernel's part of the layout changes (it enters the fingerprint)
FAR = 1.0  # the distance column of a combatant off the map (or of padding)


class FeatureLimitError(TrpgArenaError, ValueError):
    """An encounter with more combatants on a side than a system's feature layout holds."""


class Column(NamedTuple):
    """One named feature and what it means (the docs table is made of these)."""

    name: str
    doc: str


def read_columns(path: Path) -> dict[str, tuple[Column, ...]]:
    """A system's feature columns by group (``stats``, ``combatant``, ``globals``) from its data file, in order."""
    return {group: tuple(Column(str(name), str(doc)) for name, doc in rows.items())
            for group, rows in read_table(path).items()}


class Static(NamedTuple):
    """What a system says of one combatant once per encounter: its stat columns, reach and damage."""

    stats: tuple[float, ...]  # the values of `SystemFeatures.stats`, roughly in [0, 1]
    reach: float  # the farthest distance (board metric) its attacks reach from where it stands
    damage: float  # the mean damage of one of its attacks, in hit points


@dataclass(frozen=True)
class SystemFeatures:
    """A rule system's part of the feature layout (declared in ``rules/<id>/features.py`` as ``FEATURES``).

    `combatant` and `globals` name the columns of the system's `observe_combatant` and `observe_global`
    (their lengths must match `combatant_features` and `global_features`). `static` gives every
    possible combatant of an encounter its `Static` (called once per encounter content).
    """

    side_limit: int  # combatants per side the layout holds (the actor and its allies; its enemies)
    distance_scale: float  # board distance that counts as far (the distance column is distance / scale)
    stats: tuple[Column, ...]
    # (encounter, compiled tables) -> per id; Any: each system's function takes its own encounter and tables types
    static: Callable[[Any, Any], Mapping[str, Static]]
    combatant: tuple[Column, ...]
    globals: tuple[Column, ...]
    notes: str = ""  # what the docs page adds about this system (how reach and damage are read)


GLOBAL_COLUMNS = (
    Column("decider_is_ours", "1 if the pending decision belongs to the side (0 when over)"),
    Column("decision_turn", "1 if the pending decision is a turn action"),
    Column("decision_reaction", "1 if the pending decision is a reaction"),
    Column("own_able", "able combatants of the side / side limit"),
    Column("enemy_able", "able enemies / side limit"),
    Column("own_hp", "hit points of the side's able combatants / their maxima (whole side)"),
    Column("enemy_hp", "the same for the enemies"),
)

ROW_COLUMNS = (
    Column("present", "1 for a combatant, 0 for a padding row"),
    Column("able", "1 if it may still act"),
    Column("on_map", "1 if it stands on the battlefield"),
    Column("is_pc", "1 for a player character"),
    Column("is_decider", "1 if the pending decision is its"),
    Column("hp", "hit points / maximum"),
    Column("max_hp", "maximum hit points / 100 (clipped to 1)"),
    Column("conditions", "conditions it lists / 4 (clipped to 1)"),
    Column("distance", "distance to the actor / the system's distance scale (1 when far or off the map; 0 for "
                       "the actor)"),
    Column("line_of_sight", "1 if it and the actor see each other (0 for the actor)"),
    Column("in_actor_reach", "1 if the actor's attacks reach it from where both stand (and it sees it)"),
    Column("reaches_actor", "1 if its attacks reach the actor from where both stand (and it sees it)"),
    Column("threat", "reaches_actor x its mean damage / the actor's hit points (clipped to 1)"),
    Column("exposure", "in_actor_reach x the actor's mean damage / its hit points (clipped to 1)"),
)


class Limits(NamedTuple):
    """How many rows each group has: the actor (1), its allies and its enemies."""

    actor: int
    allies: int
    enemies: int

    @property
    def per_side(self) -> int:
        """Combatants a side may have (the actor and its allies)."""
        return self.actor + self.allies


@dataclass(frozen=True)
class FeatureLayout:
    """The fixed layout of one rule system's features: names in order, limits, fingerprint."""

    ruleset: str
    names: tuple[str, ...]
    limits: Limits
    fingerprint: str  # short hash of names and limits: a model refuses a layout it was not trained on
    system: SystemFeatures
    row_columns: tuple[Column, ...]
    global_columns: tuple[Column, ...]

    @property
    def size(self) -> int:
        """Length of the feature vector."""
        return len(self.names)

    @property
    def row_size(self) -> int:
        """Columns per entity row."""
        return len(self.row_columns)

    @property
    def rows(self) -> tuple[str, ...]:
        """Row prefixes in order: ``actor``, ``ally1``.., ``enemy1``.."""
        return _row_names(self.limits)

    def check(self, encounter: EncounterBase) -> None:
        """Raise `FeatureLimitError` if the encounter can put more combatants on a side than the layout holds."""
        _prepared(self, encounter)


def _row_names(limits: Limits) -> tuple[str, ...]:
    return ("actor", *(f"ally{i + 1}" for i in range(limits.allies)), *(f"enemy{i + 1}" for i in range(limits.enemies)))


def features_module(system: RuleSystem) -> tuple[str, ModuleType | None]:
    """The system's package and its ``features`` module (the layouts' declarations), None where it has none."""
    module_name = type(system).__module__  # the system's package, or a module in it
    package = module_name if hasattr(sys.modules[module_name], "__path__") else module_name.rsplit(".", 1)[0]
    try:
        return package, importlib.import_module(f"{package}.features")
    except ModuleNotFoundError as e:
        if e.name != f"{package}.features":
            raise
        return package, None


def _system_features(system: RuleSystem) -> SystemFeatures:
    package, module = features_module(system)
    if module is None:
        raise TrpgArenaError(f"{system.info.id}: no feature layout (add {package.replace('.', '/')}/features.py)")
    spec = getattr(module, "FEATURES", None)
    if not isinstance(spec, SystemFeatures):
        raise TrpgArenaError(f"{system.info.id}: {package}.features defines no FEATURES = SystemFeatures(...)")
    if len(spec.combatant) != system.combatant_features or len(spec.globals) != system.global_features:
        raise TrpgArenaError(f"{system.info.id}: features name {len(spec.combatant)} combatant and "
                             f"{len(spec.globals)} global columns; the system observes {system.combatant_features} "
                             f"and {system.global_features}")
    return spec


@cache
def _layout(system: RuleSystem) -> FeatureLayout:
    spec = _system_features(system)
    row = (*ROW_COLUMNS, *(Column(f"stat_{c.name}", c.doc) for c in spec.stats), *spec.combatant)
    glob = (*GLOBAL_COLUMNS, *spec.globals)
    limits = Limits(1, spec.side_limit - 1, spec.side_limit)
    names = [f"global.{c.name}" for c in glob]
    names += [f"{r}.{c.name}" for r in _row_names(limits) for c in row]
    if len(set(names)) != len(names):
        raise TrpgArenaError(f"{system.info.id}: feature names repeat")
    digest = hashlib.sha256(f"{system.info.id}|{FEATURES_VERSION}|{limits}|{'|'.join(names)}".encode())
    return FeatureLayout(system.info.id, tuple(names), limits, digest.hexdigest()[:16], spec, row, glob)


def layout_for(ruleset: str | RuleSystem) -> FeatureLayout:
    """The feature layout of a rule system (by id or instance); the same for every encounter of it."""
    system = ruleset if isinstance(ruleset, RuleSystem) else get_ruleset(ruleset)
    return _layout(system)


class _Prepared(NamedTuple):
    """What `encode` needs of one encounter content, computed once."""

    order: dict[str, int]  # roster position of every possible id
    sides: tuple[str, ...]  # in the encounter's order
    static: Mapping[str, Static]
    battlefield: Any
    distances: dict[tuple[Any, Any], float]  # memo of the static board's distances between two nodes


def _prepared(layout: FeatureLayout, encounter: EncounterBase) -> _Prepared:
    built = compiled(encounter)

    def build() -> _Prepared:
        if encounter.ruleset != layout.ruleset:
            raise TrpgArenaError(f"a {encounter.ruleset} encounter for the {layout.ruleset} feature layout")
        limit = layout.limits.per_side
        specs = getattr(encounter, "all_specs", lambda: encounter.combatants)()  # reinforcements too
        side_of = {c.id: c.side for c in specs}
        counts: dict[str, int] = {}
        for cid in {*side_of, *get_ruleset(encounter.ruleset).possible_ids(encounter)}:
            side = side_of.get(cid) or side_of.get(cid.split(".", 1)[0])  # a summon is on its summoner's side
            if side is not None:
                counts[side] = counts.get(side, 0) + 1
        for side, n in counts.items():
            if n > limit:
                raise FeatureLimitError(f"{layout.ruleset}: encounter '{encounter.encounter}' can put {n} combatants "
                                        f"(summons and arrivals included) on side '{side}'; the feature layout "
                                        f"holds at most {limit} per side")
        ids = [c.id for c in encounter.combatants]
        static = layout.system.static(encounter, built.tables)
        ids += [i for i in static if i not in ids]
        return _Prepared({cid: i for i, cid in enumerate(ids)}, tuple(encounter.sides()), static,
                         built.battlefield, {})

    return built.derive(f"features:{layout.fingerprint}", build)


_NO_STATIC = Static((), 0.0, 0.0)


def _focus(views: Sequence[Any], side: str, decider: str | None, distance: Callable[[Any, Any], float]) -> Any:
    """The row called the actor (see the module docstring)."""
    own = [v for v in views if v.side == side]
    if not own:
        return None
    dv = next((v for v in views if v.id == decider), None)
    if dv is not None and dv.side == side:
        return dv
    if dv is not None and dv.node is not None:
        return min(own, key=lambda v: (not v.able, distance(v.node, dv.node) if v.node is not None else 1e9))
    able = [v for v in own if v.able]
    return able[0] if able else own[0]


def encode(combat: Combat, side: str) -> np.ndarray:
    """The feature vector of `combat` from `side`'s point of view (float32, `layout_for(...).size` long)."""
    return encode_rows(combat, side)[0]


class Encoded(NamedTuple):
    """A feature vector with what the canonical action layout reads beside it."""

    vector: np.ndarray
    rows: list[str | None]  # the combatant id of every row in order (None for a padding row)
    actor_node: Any  # where the actor row's combatant stands (None off the map or with no actor)


def encode_rows(combat: Combat, side: str) -> Encoded:
    """`encode`, with the combatant id of every row and the actor's node.

    The rows are the order in which the canonical action layout (`trpg_arena.rules.core.action_layout`)
    numbers its target slots, so an action's target is the row the observation describes it in.

    It runs at every env step, so it is written for speed: one pass over the combatants, the static
    board's distances memoised, every row's values appended to one flat list packed into the array.
    """
    system = combat.system
    layout = _layout(system)
    spec = layout.system
    prep = _prepared(layout, combat.encounter)
    if side not in prep.sides:
        raise ValueError(f"no side '{side}' in encounter '{combat.encounter.encounter}' "
                         f"(sides: {', '.join(prep.sides)})")
    bf = prep.battlefield
    static = prep.static
    order = prep.order
    limits = layout.limits
    views = combat.combatants
    decision = combat.decision
    decider = decision.actor if decision is not None else None

    memo = prep.distances
    if len(memo) > 200_000:  # a bound for huge boards; typical play meets a few thousand pairs
        memo.clear()
    dist = bf.distance

    def distance(a: Any, b: Any) -> float:
        d = memo.get((a, b))
        if d is None:
            d = memo[(a, b)] = float(dist(a, b))
        return d

    actor = _focus(views, side, decider, distance)
    anode = actor.node if actor is not None else None
    allies: list[tuple[bool, float, int, CombatantView]] = []  # sort key, then the view
    enemies: list[tuple[bool, float, int, CombatantView]] = []
    own_able = enemy_able = own_hp = own_max = enemy_hp = enemy_max = 0
    far = 1 << 20
    for v in views:
        node = v.node
        d = 1e9
        if anode is not None and node is not None:
            known = memo.get((anode, node))  # `distance`, inline: this loop runs for every combatant
            if known is None:
                known = memo[(anode, node)] = float(dist(anode, node))
            d = known
        if v.side == side:
            if v.able:
                own_able += 1
                own_hp += max(0, min(v.hp, v.max_hp))
            own_max += max(1, v.max_hp)
            if v is not actor:
                allies.append((not v.able, d, order.get(v.id, far), v))
        else:
            if v.able:
                enemy_able += 1
                enemy_hp += max(0, min(v.hp, v.max_hp))
            enemy_max += max(1, v.max_hp)
            enemies.append((not v.able, d, order.get(v.id, far), v))
    if len(allies) > limits.allies or len(enemies) > limits.enemies:
        n, where = (len(allies) + 1, f"side '{side}'") if len(allies) > limits.allies else (len(enemies), "its enemies")
        raise FeatureLimitError(f"{layout.ruleset}: {n} combatants on {where} in encounter "
                                f"'{combat.encounter.encounter}'; the feature layout holds at most "
                                f"{limits.per_side} per side")
    allies.sort(key=_first3)
    enemies.sort(key=_first3)
    side_limit = float(limits.per_side)
    kind = decision.kind if decision is not None else None
    dv_side = combat.side_of(decider) if decider is not None else None
    out: list[float] = [float(dv_side == side), float(kind == DecisionKind.TURN), float(kind == DecisionKind.REACTION),
                        own_able / side_limit, enemy_able / side_limit, own_hp / (own_max or 1),
                        enemy_hp / (enemy_max or 1)]
    out += system.observe_global(combat)
    present = [] if actor is None else [actor]
    present += [e[3] for e in allies]
    present += [e[3] for e in enemies]
    observed = iter(system.observe_combatants(combat, [v.id for v in present]) if system.combatant_features else ())
    has_observed = bool(system.combatant_features)
    empty = [0.0] * layout.row_size
    zero_stats = (0.0,) * len(spec.stats)
    if actor is not None:
        a_static = static.get(actor.id, _NO_STATIC)
        a_reach, a_damage, a_able, a_hp = a_static.reach, a_static.damage, actor.able, max(1, actor.hp)
        mx = actor.max_hp
        out += (1.0, float(actor.able), float(anode is not None), float(actor.kind == "pc"),
                float(actor.id == decider), actor.hp / mx if mx else 0.0, min(1.0, mx / 100.0),
                min(1.0, len(actor.conditions) / 4), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        out += a_static.stats or zero_stats
        if has_observed:
            out += next(observed)
    else:
        out += empty
    los = bf.line_of_sight
    scale = spec.distance_scale
    row_ids: list[str | None] = [actor.id if actor is not None else None]
    # the vector is zeros but for two runs of values: the globals, the actor and its present allies, then
    # the present enemies; only those are packed (padding rows are about half the vector)
    vec = np.zeros(layout.size, dtype=np.float32)
    enemies_at = len(layout.global_columns) + layout.row_size * (1 + limits.allies)
    for group, limit in ((allies, limits.allies), (enemies, limits.enemies)):
        if group is enemies:
            _pack(vec, 0, out)
            out = []
        for _, d, _, v in group:
            st = static.get(v.id, _NO_STATIC)
            mx = v.max_hp
            able = v.able
            out += (1.0, float(able), float(v.node is not None), float(v.kind == "pc"), float(v.id == decider),
                    v.hp / mx if mx else 0.0, min(1.0, mx / 100.0), min(1.0, len(v.conditions) / 4))
            if anode is None or v.node is None:
                out += (FAR, 0.0, 0.0, 0.0, 0.0, 0.0)
            else:
                sees = los(anode, v.node) if d > 1 else True
                mine_reach = float(sees and able and a_able and d <= a_reach)
                their_reach = float(sees and able and d <= st.reach)
                out += (min(1.0, d / scale), float(sees), mine_reach, their_reach,
                        min(1.0, their_reach * st.damage / a_hp), min(1.0, mine_reach * a_damage / max(1, v.hp)))
            out += st.stats or zero_stats
            if has_observed:
                out += next(observed)
            row_ids.append(v.id)
        row_ids += [None] * (limit - len(group))
    _pack(vec, enemies_at, out)
    np.minimum(vec, _ONE, out=vec)  # clip to [-1, 1] (two ufuncs: several times cheaper than np.clip here)
    np.maximum(vec, _MINUS_ONE, out=vec)
    return Encoded(vec, row_ids, anode)


_ONE, _MINUS_ONE = np.float32(1.0), np.float32(-1.0)


@cache
def _packer(n: int) -> struct.Struct:
    return struct.Struct(f"={n}f")


def _pack(vec: np.ndarray, at: int, values: list[float]) -> None:
    """Write `values` into `vec` from `at` as float32 (packing into the buffer beats np.array(list) twofold)."""
    if not values:
        return
    try:
        _packer(len(values)).pack_into(vec, at * 4, *values)  # type: ignore[arg-type]  # an ndarray is a buffer
    except (OverflowError, struct.error):  # a feature beyond float32's range: inf, clipped to 1 after
        with np.errstate(over="ignore"):
            vec[at:at + len(values)] = np.array(values, dtype=np.float64).astype(np.float32)


def _first3(entry: tuple[bool, float, int, Any]) -> tuple[bool, float, int]:
    """The sort key of an ally or enemy entry: able first, then distance to the actor, then roster order."""
    return entry[0], entry[1], entry[2]


def markdown(ruleset: str | RuleSystem) -> str:
    """The docs page of a system's feature layout (``docs/features/<id>.md`` is this text)."""
    layout = layout_for(ruleset)
    spec = layout.system
    lim = layout.limits
    lines = [f"# Features of {layout.ruleset}", "",
             f"Generated by `trpg-arena features {layout.ruleset} --out docs/features/{layout.ruleset}.md --force` "
             "from the rule system's feature layout (`trpg_arena.rules.core.features`); do not edit by hand.", "",
             f"- size: {layout.size} float32 values, each in [-1, 1]",
             f"- fingerprint: `{layout.fingerprint}`",
             f"- rows: the actor, {lim.allies} allies, {lim.enemies} enemies ({lim.per_side} combatants per side at "
             f"most; a bigger encounter is refused)",
             f"- distance scale: {spec.distance_scale:g} (board units)", "",
             "The vector is the global columns (`global.NAME`), then one row per entity (`actor.NAME`, "
             "`ally1.NAME` .., `enemy1.NAME` ..). The actor is the decider when it is on the side the vector "
             "is seen from; otherwise that side's combatant nearest to the decider (able first, then roster "
             "order), or with no decider its first able one. Allies and enemies are sorted able first, then by "
             "distance to the actor, then roster order; missing rows are zeros.", ""]
    if spec.notes:
        lines += [spec.notes, ""]
    lines += ["## Global columns", "", "| # | name | meaning |", "|---|---|---|"]
    lines += [f"| {i} | `global.{c.name}` | {c.doc} |" for i, c in enumerate(layout.global_columns)]
    lines += ["", f"## Row columns ({layout.row_size} per row)", "", "| # | name | meaning |", "|---|---|---|"]
    lines += [f"| {i} | `{c.name}` | {c.doc} |" for i, c in enumerate(layout.row_columns)]
    text = "\n".join(lines) + "\n"
    from trpg_arena.rules.core import action_layout  # imported here: the action layout builds on this module

    try:
        return text + "\n" + action_layout.markdown(ruleset)
    except action_layout.ActionLimitError:  # a system without a canonical action layout
        return text


__all__ = ["Column", "FeatureLayout", "FeatureLimitError", "Limits", "Static", "SystemFeatures", "encode",
           "Encoded", "encode_rows", "layout_for", "markdown"]
