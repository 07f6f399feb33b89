"""The action catalogue (the env's ``Discrete(n)`` layout): every action that can ever be legal in an encounter.

Layout, in this order: deploy front/rear; escape, stay; purge <condition> x5; done; pass;
delay 1..B; move <zone> x4; attack <skill>; offense none + offense skills; limit_break none + offense skills;
target <combatant> (every possible combatant, summons included); target <zone> x4; target_done;
use_skill (every skill known by anyone, with every possible target / option); use_item <item> <combatant>;
coup_de_grace <combatant>; clear_trance; dodge none + defense skills; counter; cover; decline;
interrupt <skill> <combatant>.

Delay bound B = max over every possible combatant of (Action + 12 + the largest AP bonus among its skills,
``quicken``: 3), or a larger AP given in the ``start`` section (a combatant's or a summon's), minus 1: no
combatant can ever hold more action points (a GM edit of AP stops at B + 1, edits.py), so ``delay v`` for
1 <= v <= AP - 1 is always inside the catalogue (MOON-6.3).
"""

from __future__ import annotations

from trpg_arena.rules.core.values import Action
from trpg_arena.rules.moonlit.data import CONDITIONS, SKILLS, ZONES
from trpg_arena.rules.moonlit.tables import Table
from trpg_arena.rules.moonlit.verbs import SkillChoice, Verb


def build_catalogue(t: Table) -> list[Action]:
    """Build the fixed action list of an encounter."""
    out: list[Action] = [Action(Verb.DEPLOY, None, None, "front"), Action(Verb.DEPLOY, None, None, "rear"),
                         Action(Verb.ESCAPE), Action(Verb.STAY)]
    out += [Action(Verb.PURGE, None, None, c) for c in CONDITIONS]
    out += [Action(Verb.DONE), Action(Verb.PASS)]
    out += [Action(Verb.DELAY, None, None, v) for v in range(1, t.delay_bound + 1)]
    out += [Action(Verb.MOVE, None, z) for z in ZONES]
    known = t.skills_known
    by = {cat: [s for s in known if SKILLS[s].category == cat] for cat in
          ("attack", "offense", "defense", "interrupt", "setup", "end", "normal")}
    out += [Action(Verb.ATTACK, None, None, s) for s in by["attack"]]
    out += [Action(Verb.OFFENSE, None, None, "none")] + [Action(Verb.OFFENSE, None, None, s) for s in by["offense"]]
    out += [Action(Verb.LIMIT_BREAK, None, None, "none")]
    out += [Action(Verb.LIMIT_BREAK, None, None, s) for s in by["offense"]]
    out += [Action(Verb.TARGET, i) for i in t.ids] + [Action(Verb.TARGET, z) for z in ZONES]
    out += [Action(Verb.TARGET_DONE)]
    for cat in ("setup", "end", "normal"):
        for s in by[cat]:
            sk = SKILLS[s]
            if sk.summon:
                out += [Action(Verb.USE_SKILL, None, None, SkillChoice(s, tpl)) for tpl in sk.summon]
            elif sk.remove_condition:
                out += [Action(Verb.USE_SKILL, i, None, SkillChoice(s, c)) for i in t.ids for c in CONDITIONS]
            else:
                out += [Action(Verb.USE_SKILL, i, None, s) for i in t.ids]
    out += [Action(Verb.USE_ITEM, i, None, it) for it in t.items_known for i in t.ids]
    out += [Action(Verb.COUP_DE_GRACE, i) for i in t.ids]
    out += [Action(Verb.CLEAR_TRANCE)]
    out += [Action(Verb.DODGE, None, None, "none")] + [Action(Verb.DODGE, None, None, s) for s in by["defense"]]
    out += [Action(Verb.COUNTER), Action(Verb.COVER), Action(Verb.DECLINE)]
    out += [Action(Verb.INTERRUPT, i, None, s) for s in by["interrupt"] for i in t.ids]
    return out
