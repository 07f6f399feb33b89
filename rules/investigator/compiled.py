"""The static part of an encounter, compiled once and cached on it: profiles, templates, map.

Nothing here changes during a combat, so it lives outside the state (and outside snapshots).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.compiled import compiled
from trpg_arena.rules.core.values import Decision, shared_decision
from trpg_arena.rules.investigator.library import LIBRARY
from trpg_arena.rules.investigator.model import InvestigatorEncounter, InvestigatorOptions
from trpg_arena.rules.investigator.rolls import LEVEL_OF_NAME, Expr, derived, parse_expr

if TYPE_CHECKING:
    from trpg_arena.rules.investigator.moves import MoveTables
    from trpg_arena.rules.investigator.paths import PathTables

Cell = tuple[int, int]
DIRS: dict[str, Cell] = {"N": (0, -1), "NE": (1, -1), "E": (1, 0), "SE": (1, 1), "S": (0, 1), "SW": (-1, 1),
                         "W": (-1, 0), "NW": (-1, -1)}
DIR_OF: dict[Cell, str] = {v: k for k, v in DIRS.items()}
MANEUVERS = ("knock_down", "disarm", "push")


@dataclass(frozen=True, slots=True)
class WeaponT:
    """A compiled weapon template."""

    id: str
    name: str
    kind: str  # melee | firearm | thrown
    skill: str
    damage: Expr
    db_mode: str
    impale: bool
    base_range: int
    bands: tuple[tuple[int, int, Expr | None], ...]
    capacity: int
    loaded: int
    ammo_type: str
    malfunction: int | None
    shots: int
    count: int


UNARMED = WeaponT("unarmed", "unarmed", "melee", "Fighting (Brawl)", parse_expr("1D3"), "full", False, 0, (), 0, 0,
                  "", None, 1, 1)


@dataclass(frozen=True, slots=True)
class SpellT:
    """A compiled spell."""

    id: str
    name: str
    mp_cost: int
    materials: tuple[tuple[str, int], ...]
    range: int
    rounds: int
    target_rule: str
    effect: str
    dice: Expr
    visible: bool
    resist: bool


@dataclass(frozen=True, slots=True)
class TechT:
    """A compiled prepare technique."""

    id: str
    name: str
    skill: str
    bonus_to: tuple[str, ...]
    expires: str
    requires: str


@dataclass
class Profile:
    """A combatant's fixed numbers (INV-0.6)."""

    id: str
    name: str
    side: str
    kind: str
    str_: int
    con: int
    siz: int
    dex: int
    pow: int
    luck: int
    max_hp: int
    max_mp: int
    mov: int
    db: Expr
    build: int
    armour: int
    actions: int
    skills: dict[str, int]
    spells: tuple[str, ...]
    techniques: tuple[str, ...]

    def skill(self, name: str) -> int:
        """A skill value, with the INV-0.6 defaults."""
        v = self.skills.get(name)
        if v is not None:
            return v
        if name == "Dodge":
            return self.dex // 2
        if name in ("STR", "CON", "SIZ", "DEX", "POW"):
            return int(getattr(self, name.lower() if name != "STR" else "str_"))
        return LIBRARY.default_skills.get(name, 0)


def _weapon(wid: str, w: Any) -> WeaponT:
    bands = tuple((b.max, LEVEL_OF_NAME[b.level], parse_expr(b.damage) if b.damage else None) for b in w.bands)
    db_mode = w.db_mode or {"melee": "full", "thrown": "half", "firearm": "none"}[w.kind]
    cap = w.capacity
    return WeaponT(wid, w.name or wid, w.kind, w.skill, parse_expr(w.damage), db_mode, w.impale,
                   w.base_range or (bands[-1][0] if bands else 0), bands, cap,
                   cap if w.loaded is None else w.loaded, w.ammo_type,
                   w.malfunction if w.kind == "firearm" else None, w.shots_per_action, w.count)


@dataclass
class Setup:
    """Everything static about one encounter."""

    enc: InvestigatorEncounter
    opt: InvestigatorOptions
    ids: list[str]
    idx: dict[str, int]
    profiles: list[Profile]
    side_of: dict[str, str]
    sides: list[str]
    weapons: dict[str, WeaponT]
    spells: dict[str, SpellT]
    techniques: dict[str, TechT]
    width: int
    height: int
    terrain: dict[Cell, str]
    exits: frozenset[Cell]
    bf: Any = None  # the Battlefield (set by the system when it is built)
    grid: Any = None  # its compiled grid (`core.grid.Grid`, set with it)
    catalogue: Any = None  # the Catalogue (built on first use)
    heads: list[tuple[str, str, str, str, int]] | None = None  # see view_heads
    moves: MoveTables | None = None  # one-step and long-move tables over the kernel's grid (built on first use)
    paths: PathTables | None = None  # the INV-4.6 path search's square numbering (built on first use)
    legal_lists: dict[Any, list[Any]] = field(default_factory=dict)  # legal.Legal's memoised reaction/defense sets
    wall_mask: int = 0  # the wall squares, as a mask of `grid`
    obstacle_mask: int = 0  # the obstacle squares, likewise
    prepare_options: dict[str, tuple[tuple[str, Any], ...]] = field(default_factory=dict)  # see legal.Legal.turn
    groups: list[tuple[str, tuple[int, ...]]] | None = None  # see side_groups
    decisions: dict[tuple[str, str, str, str], Decision] = field(default_factory=dict)  # see decision

    def view_heads(self) -> list[tuple[str, str, str, str, int]]:
        """Per combatant, the fixed part of its view: (id, name, side, "pc"/"npc", max hp) (built once)."""
        heads = self.heads
        if heads is None:
            heads = self.heads = [(p.id, p.name, p.side, p.kind, p.max_hp)
                                  for p in self.profiles]
        return heads

    def side_groups(self) -> list[tuple[str, tuple[int, ...]]]:
        """Per side with combatants, in the order of first appearance: (side, the combatants' indices) (built once)."""
        groups = self.groups
        if groups is None:
            by_side: dict[str, list[int]] = {}
            for i, cid in enumerate(self.ids):
                by_side.setdefault(self.side_of[cid], []).append(i)
            groups = self.groups = [(side, tuple(members)) for side, members in by_side.items()]
        return groups

    def decision(self, actor: str, kind: str, a: str, b: str = "") -> Decision:
        """The (shared, immutable) `Decision` of `actor` of one kind; `a` and `b` are what its prompt names.

        ``turn_action``: nothing; ``phase_offer``: the phase; ``reaction``: the mover and the trigger event;
        ``defense``: the attacker and the attack verb.
        """
        key = (actor, kind, a, b)
        d = self.decisions.get(key)  # kept per encounter: a prompt is worded once, not at every decision
        if d is None:
            d = self.decisions[key] = shared_decision(
                actor, kind, f"{actor}: choose an action" if kind == "turn_action" else
                f"{actor}: {a} now, or wait" if kind == "phase_offer" else
                f"{actor}: react to {a} ({b})" if kind == "reaction" else f"{actor}: defend against {a}'s {b}")
        return d

    def prof(self, cid: str) -> Profile:
        """The profile of a combatant."""
        return self.profiles[self.idx[cid]]

    def max_range(self, w: WeaponT) -> int:
        """The longest legal shooting distance of a firearm (INV-6.2)."""
        if w.bands:
            return max(b[0] for b in w.bands)
        return 4 * w.base_range if self.opt.range_bands else w.base_range

    def wall_between(self, a: Cell, b: Cell) -> bool:
        """Whether a wall square blocks the line between `a` and `b` (INV-6.6: the segment crosses a wall)."""
        return bool(self.wall_mask and self.grid.crossing(a, b) & self.wall_mask)


def compile_setup(enc: InvestigatorEncounter) -> Setup:
    """The static setup of an encounter, compiled once per content by the kernel (`InvestigatorSystem.compile`)."""
    return compiled(enc).tables


def build_setup(enc: InvestigatorEncounter) -> Setup:
    """Build the static setup: profiles, weapons, spells, techniques, terrain (no battlefield yet)."""
    weapons: dict[str, WeaponT] = {"unarmed": UNARMED}
    names = set(enc.weapons).union(*(c.weapons for c in enc.combatants),
                                   (g.weapon for g in enc.map.ground_items if g.weapon))
    for wid in sorted(names):
        t = enc.weapon_template(wid)
        if t is not None:
            weapons[wid] = _weapon(wid, t)
    spells: dict[str, SpellT] = {}
    for sid in sorted(set(enc.spells).union(*(c.spells for c in enc.combatants))):
        s = enc.spell_template(sid)
        assert s is not None
        spells[sid] = SpellT(sid, s.name or sid, s.mp_cost, tuple(sorted(s.materials.items())), s.range,
                             s.casting_rounds, s.target_rule, s.effect, parse_expr(s.dice), s.visible_wound,
                             s.resist == "pow")
    techs: dict[str, TechT] = {}
    for tid in sorted({"aim", *enc.techniques}.union(*(c.techniques for c in enc.combatants))):
        tech = enc.technique_template(tid)
        assert tech is not None
        techs[tid] = TechT(tid, tech.name or tid, tech.skill, tuple(tech.bonus_to), tech.expires, tech.requires)
    profiles = []
    for c in enc.combatants:
        hp, mp, mov, db, build = derived(c.str_, c.con, c.siz, c.dex, c.pow)
        if c.db is not None:
            db = parse_expr(c.db)
        profiles.append(Profile(
            c.id, c.name or c.id, c.side, c.kind, c.str_, c.con, c.siz, c.dex, c.pow, c.luck or 0,
            c.max_hp if c.max_hp is not None else hp, c.max_mp if c.max_mp is not None else mp,
            c.mov if c.mov is not None else mov, db, c.build if c.build is not None else build, c.armour,
            c.standard_actions, dict(c.skills), tuple(c.spells), tuple(c.techniques)))
    # a square listed under several kinds is the last one's (a wall over an obstacle over difficult ground)
    terrain: dict[Cell, str] = {tuple(cell): kind for kind in ("difficult", "obstacle", "wall")
                                for cell in getattr(enc.map.terrain, kind)}
    ids = [c.id for c in enc.combatants]
    setup = Setup(enc, enc.options, ids, {c: i for i, c in enumerate(ids)}, profiles,
                  {c.id: c.side for c in enc.combatants}, enc.sides(), weapons, spells, techs,
                  enc.map.width, enc.map.height, terrain, frozenset(enc.map.exits))
    return setup

