"""The action catalogue (the env's ``Discrete(n)`` layout): every action that can ever be legal in an encounter.

Layout, in this order: deploy front/rear; escape, stay; purge <condition> x5; done; pass;
delay 1..B; move <zone> x4; attack <skill>; offense none + offense skills; limit_break none + offense skills;
target <combatant> (every possible combatant, summons included); target <zone> x4; target_done;
use_skill (every skill known by anyone, with every possible target / option); use_item <item> <combatant>;
coup_de_grace <combatant>; clear_trance; dodge none + defense skills; counter; cover; decline;
interrupt <skill> <combatant>.

Delay bound B = max over every possible combatant of (Action + 12 + the largest AP bonus among its skills,
``quicken``: 3) - 1, or a larger AP given in the ``start`` section, minus 1: no combatant can ever hold more
action points, so ``delay v`` for 1 <= v <= AP - 1 is always inside the catalogue (MOON-6.3).
"""

from __future__ import annotations

from trpg_arena.rules.core.values import Action
from trpg_arena.rules.moonlit.data import CONDITIONS, SKILLS, ZONES
from trpg_arena.rules.moonlit.tables import Table


def build_catalogue(t: Table) -> list[Action]:
    """Build the fixed action list of an encounter."""
    out: list[Action] = [Action("deploy", None, None, "front"), Action("deploy", None, None, "rear"),
                         Action("escape"), Action("stay")]
    out += [Action("purge", None, None, c) for c in CONDITIONS]
    out += [Action("done"), Action("pass")]
    out += [Action("delay", None, None, v) for v in range(1, t.delay_bound + 1)]
    out += [Action("move", None, z) for z in ZONES]
    known = t.skills_known
    by = {cat: [s for s in known if SKILLS[s].category == cat] for cat in
          ("attack", "offense", "defense", "interrupt", "setup", "end", "normal")}
    out += [Action("attack", None, None, s) for s in by["attack"]]
    out += [Action("offense", None, None, "none")] + [Action("offense", None, None, s) for s in by["offense"]]
    out += [Action("limit_break", None, None, "none")] + [Action("limit_break", None, None, s) for s in by["offense"]]
    out += [Action("target", i) for i in t.ids] + [Action("target", z) for z in ZONES] + [Action("target_done")]
    for cat in ("setup", "end", "normal"):
        for s in by[cat]:
            sk = SKILLS[s]
            if sk.summon:
                out += [Action("use_skill", None, None, (s, tpl)) for tpl in sk.summon]
            elif sk.remove_condition:
                out += [Action("use_skill", i, None, (s, c)) for i in t.ids for c in CONDITIONS]
            else:
                out += [Action("use_skill", i, None, s) for i in t.ids]
    out += [Action("use_item", i, None, it) for it in t.items_known for i in t.ids]
    out += [Action("coup_de_grace", i) for i in t.ids]
    out += [Action("clear_trance")]
    out += [Action("dodge", None, None, "none")] + [Action("dodge", None, None, s) for s in by["defense"]]
    out += [Action("counter"), Action("cover"), Action("decline")]
    out += [Action("interrupt", i, None, s) for s in by["interrupt"] for i in t.ids]
    return out
