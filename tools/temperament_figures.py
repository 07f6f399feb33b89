"""What NPC temperaments change, counted over seeded scripted games (the figures of docs/temperaments.md).

    .venv/bin/python tools/temperament_figures.py

The same encounters, NPCs and seeds as tests/agents/test_temperament.py, with and without the temperament:
how often a cowardly NPC takes its way out when eligible and in how many games it flees (Wilson 95 %
intervals), how often a focused NPC attacks its focus when it attacks and could, how near a protector
stays to its ally, and the share of attacks among reckless, steady and cautious NPCs' attack-or-defend
choices.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.agents.test_temperament import (  # noqa: E402  (the repository root first)
    FOCUSED,
    PROTECTORS,
    RUNNERS,
    _status,
    play,
    tempered,
    with_exits,
)
from trpg_arena.agents.spec import make_agent  # noqa: E402
from trpg_arena.agents.temperament import focus_targets, temper, view_of  # noqa: E402
from trpg_arena.agents.temperament_systems import hooks, kind_of  # noqa: E402
from trpg_arena.rules import Combat, Dice, load_encounter  # noqa: E402

GAMES = 12


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of k successes in n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = p + z * z / (2 * n)
    r = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (c - r) / d, (c + r) / d


def morale() -> None:
    """A cowardly NPC: how often it leaves when eligible, and in how many games it flees."""
    for rid, name, npc, share in RUNNERS:
        data = with_exits(rid, name)
        plain = load_encounter(data)
        enc = load_encounter({**data, "tactics": {npc: {"morale": share}}})
        leave = hooks(rid).leave
        eligible = left = fled = fled_plain = 0
        for seed in range(GAMES):
            last: Any = None
            for combat, action in play(enc, seed, npc):
                last = combat
                me = view_of(combat, npc)
                if me is not None and me.hp < share * me.max_hp and any(a.verb in leave for a in
                                                                        combat.legal_actions()):
                    eligible += 1
                    left += action.verb in leave
            fled += last is not None and _status(last, npc) == "fled"
            for combat, _ in play(plain, seed, npc):
                last = combat
            fled_plain += last is not None and _status(last, npc) == "fled"
        lo, hi = wilson(fled, GAMES)
        lo0, hi0 = wilson(fled_plain, GAMES)
        print(f"morale {rid}/{name} {npc} {share:.0%}: left {left}/{eligible} times eligible; fled in {fled}/{GAMES} "
              f"games [{lo:.2f}, {hi:.2f}], {fled_plain}/{GAMES} without [{lo0:.2f}, {hi0:.2f}]")


def focus() -> None:
    """A focused NPC: how often it attacks its focus when it attacks and could, with and without."""
    for rid, name, npc, word in FOCUSED:
        for label, enc in (("with", tempered(rid, name, {npc: {"focus": word}})),
                           ("without", load_encounter(f"{rid}/{name}"))):
            could = chose = 0
            for seed in range(GAMES):
                for combat, action in play(enc, seed, npc):
                    me = view_of(combat, npc)
                    assert me is not None
                    wanted, _ = focus_targets(combat, me, word)
                    enemies = {v.id for v in combat.combatants if v.side != me.side}
                    attacks = [a for a in combat.legal_actions()
                               if kind_of(combat, a, enemies) == "attack" and a.target in enemies]
                    if any(a.target in wanted for a in attacks) and action in attacks:
                        could += 1
                        chose += action.target in wanted
            print(f"focus {rid}/{name} {npc} {word} {label}: attacked its focus {chose}/{could} times it could")


def protect() -> None:
    """A protector: its mean distance to its ally at its decisions, with and without."""
    for rid, name, npc, ally in PROTECTORS:
        found = []
        for enc in (tempered(rid, name, {npc: {"protect": ally}}), load_encounter(f"{rid}/{name}")):
            total = n = 0
            for seed in range(10):
                for combat, _ in play(enc, seed, npc):
                    me, other = view_of(combat, npc), view_of(combat, ally)
                    if me is None or other is None or not other.able or me.node is None or other.node is None:
                        continue
                    total += combat.battlefield.distance(me.node, other.node)
                    n += 1
            found.append((total / max(1, n), n))
        print(f"protect {rid}/{name} {npc} -> {ally}: mean distance {found[0][0]:.2f} over {found[0][1]} decisions, "
              f"{found[1][0]:.2f} over {found[1][1]} without")


def aggression() -> None:
    """Every NPC reckless, steady or cautious: the share of attacks among attacks and defences."""
    for rid in ("investigator", "kiai", "moonlit", "reincarnator"):
        npcs = [c.id for c in load_encounter(f"{rid}/skirmish").combatants if c.kind == "npc"]
        shares = []
        for word in ("reckless", "steady", "cautious"):
            enc = tempered(rid, "skirmish", {n: {"aggression": word} for n in npcs})
            attacks = total = 0
            for seed in range(6):
                combat = Combat(enc, dice=Dice(seed))
                agents = {s: temper(make_agent("scripted", rid, seed), enc.tactics) for s in combat.sides}
                for _ in range(1500):
                    d = combat.decision
                    if d is None:
                        break
                    action = agents[combat.side_of(d.actor)].act(combat)
                    if d.actor in npcs and len(combat.legal_actions()) > 1:
                        enemies = {v.id for v in combat.combatants if v.side != combat.side_of(d.actor)}
                        kind = kind_of(combat, action, enemies)
                        attacks += kind == "attack"
                        total += kind in ("attack", "defend")
                    combat.act(action)
            shares.append(f"{word} {attacks}/{total} ({attacks / max(1, total):.0%})")
        print(f"aggression {rid}/skirmish: attacks among attack-or-defend choices: {', '.join(shares)}")


if __name__ == "__main__":
    morale()
    focus()
    protect()
    aggression()
