"""Static, per-encounter tables: stat blocks of every combatant that can ever appear (summons included).

Built by `MoonlitSystem.compile` once per encounter content, cached by the kernel (`core.compiled`) and
shared by every combat of that encounter (`Combat.tables`), never copied by `clone()`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trpg_arena.rules.core.compiled import compiled
from trpg_arena.rules.moonlit.data import GEAR, SKILLS, TEMPLATES, Gear, Skill
from trpg_arena.rules.moonlit.model import MoonlitEncounter, MoonlitOptions


@dataclass(frozen=True)
class Stats:
    """One combatant's stat block (spec section 4.1), with its skills split by category."""

    id: str
    name: str
    side: str
    kind: str
    body: int
    action: int
    melee: int
    ranged: int
    mental: int
    defense: int
    max_hp: int
    max_tp: int
    emotion: int
    attributes: dict[str, int]
    skills: tuple[str, ...]
    weapon: Gear | None
    armour_dice: int
    items: dict[str, int]
    can_escape: bool
    summoner: str | None = None
    template: str | None = None
    by_cat: dict[str, tuple[Skill, ...]] = field(default_factory=dict)

    def cat(self, category: str) -> tuple[Skill, ...]:
        """This combatant's skills of one category, in stat-block order."""
        return self.by_cat.get(category, ())

    def stat(self, kind: str) -> int:
        """Melee, Ranged or Mental score by attack type."""
        return self.melee if kind == "melee" else self.ranged if kind == "ranged" else self.mental

    @property
    def is_summon(self) -> bool:
        """Whether this is a summon (MOON-15.7)."""
        return self.summoner is not None


@dataclass
class Table:
    """Everything static about one encounter."""

    opts: MoonlitOptions
    stats: dict[str, Stats]
    ids: list[str]  # every possible combatant: roster order, then possible summons
    index: dict[str, int]
    summons_of: dict[str, list[str]]  # summoner -> possible summon ids
    arrivals: dict[str, tuple[int, str]]  # id -> (round, zone)
    hazards: list[tuple[str, int]]
    delay_bound: int
    skills_known: list[str]
    items_known: list[str]


def _split(skills: tuple[str, ...]) -> dict[str, tuple[Skill, ...]]:
    out: dict[str, list[Skill]] = {}
    for s in skills:
        sk = SKILLS[s]
        out.setdefault(sk.category, []).append(sk)
    return {k: tuple(v) for k, v in out.items()}


def _summon_stats(summoner: Stats, template: str) -> Stats:
    t = TEMPLATES[template]
    return Stats(id=f"{summoner.id}.{template}", name=t.name_zh, side=summoner.side, kind=summoner.kind,
                 body=t.body, action=t.action, melee=t.melee, ranged=t.ranged, mental=t.mental, defense=t.defense,
                 max_hp=t.max_hp, max_tp=t.max_tp, emotion=0, attributes={}, skills=t.skills, weapon=None,
                 armour_dice=0, items={}, can_escape=False, summoner=summoner.id, template=template,
                 by_cat=_split(t.skills))


def build_table(enc: MoonlitEncounter) -> Table:
    """Compile the static tables of an encounter."""
    stats: dict[str, Stats] = {}
    for c in enc.combatants:
        armour = GEAR[c.armour].defense_dice if c.armour else 0
        stats[c.id] = Stats(id=c.id, name=c.name or c.id, side=c.side, kind=c.kind, body=c.body, action=c.action,
                            melee=c.melee, ranged=c.ranged, mental=c.mental, defense=c.defense, max_hp=c.max_hp,
                            max_tp=c.max_tp, emotion=c.emotion, attributes={e: n for e, n in c.attributes.items()},
                            skills=tuple(c.skills), weapon=GEAR[c.weapon] if c.weapon else None,
                            armour_dice=armour, items=dict(c.items), can_escape=c.can_escape,
                            by_cat=_split(tuple(c.skills)))
    ids = [c.id for c in enc.combatants]
    starts = enc.start.combatants.values() if enc.start is not None else ()
    summons_of: dict[str, list[str]] = {}
    wanted = [(c.id, t) for c in enc.combatants for s in c.skills for t in SKILLS[s].summon]
    if enc.start is not None:
        wanted.extend((s.summoner, s.template) for s in enc.start.summons)
    for summoner, t in wanted:
        sid = f"{summoner}.{t}"
        if sid in stats:
            continue
        stats[sid] = _summon_stats(stats[summoner], t)
        ids.append(sid)
        summons_of.setdefault(summoner, []).append(sid)
    # the highest AP anyone can have: its action score, 12 on the dice and its quickest skill, or a start's AP
    # (a combatant's or a summon's); a GM edit stops there too (edits.py)
    summon_aps = [sm.ap for sm in enc.start.summons] if enc.start is not None else []
    bound = max([1, *(st.action + 12 + max((SKILLS[s].ap_mod for s in st.skills), default=0) for st in stats.values()),
                 *(sc.ap for sc in starts if sc.ap is not None), *summon_aps])
    known = list(dict.fromkeys(s for st in stats.values() for s in st.skills))
    items = list(dict.fromkeys([*(i for st in stats.values() for i in st.items),
                                *(i for sc in starts for i in sc.items or {})]))
    return Table(opts=enc.options, stats=stats, ids=ids, index={i: n for n, i in enumerate(ids)},
                 summons_of=summons_of, arrivals={a.combatant: (a.round, a.zone) for a in enc.arrivals},
                 hazards=[(h.zone, h.n) for h in enc.hazards], delay_bound=bound - 1, skills_known=known,
                 items_known=items)


def table_of(enc: Any) -> Table:
    """The compiled `Table` of an encounter (a combat has it as `combat.tables`)."""
    return compiled(enc).tables
