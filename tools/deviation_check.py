"""Are the `trained` agent's departures from the scripted choice gains? Its estimate against play-outs to the end.

    .venv/bin/python tools/deviation_check.py ENCOUNTER [SPEC] [GAMES] [PLAYOUTS]   # default: trained:hard 4 60

SPEC plays GAMES games against scripted, its side alternating (seeds 50, 51, ...). At every decision
where it leaves the scripted choice, the chosen action and the scripted one are each played out to the
end of the fight PLAYOUTS times, by the scripted policy on both sides and on the same dice for the two
(paired): the mean difference of the results (a win 1, a draw 0.5, a loss 0) is what the departure
gains where scripted play follows, the yardstick the agent is measured against. Printed per kind of
departure (the chosen verb <- the scripted verb): how many, the agent's mean estimated gain, and the
mean play-out gain with its standard error. A kind whose estimate is high and play-out gain is not is
where the value model is wrong; the totals say whether the departures help on this encounter at all.
"""

from __future__ import annotations

import sys
from collections import defaultdict

import numpy as np

from trpg_arena.agents import make_agent
from trpg_arena.rules import Action, Combat, Dice, load_encounter


def playout(combat: Combat, action: Action, side: str, ruleset: str, seed: int) -> float:
    """`side`'s result after `action`, the rest of the fight played by the scripted policy on dice `seed`."""
    sim = combat.clone(dice=Dice(seed))
    sim.recording = False
    policy = make_agent("scripted", ruleset, seed=seed)
    sim.act(action)
    while not sim.over:
        sim.act(policy.act(sim))
    outcome = sim.state.outcome
    assert outcome is not None  # the fight is over
    return 1.0 if outcome.result == side else 0.5 if outcome.result == "draw" else 0.0


def main() -> None:
    """Print one Markdown row per kind of departure, then the totals."""
    name = sys.argv[1]
    spec = sys.argv[2] if len(sys.argv) > 2 else "trained:hard"  # the full-strength look, no sampled choice
    games = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    playouts = int(sys.argv[4]) if len(sys.argv) > 4 else 60
    encounter = load_encounter(name)
    rid = encounter.ruleset
    sides = sorted({c.side for c in encounter.combatants})
    kinds: dict[str, list[tuple[float, float]]] = defaultdict(list)
    decisions = 0
    for g in range(games):
        combat = Combat(load_encounter(name), seed=50 + g)
        agent = make_agent(spec, rid, seed=g)
        script = make_agent("scripted", rid, seed=g)
        ours = sides[g % 2]
        while not combat.over:
            d = combat.decision
            assert d is not None
            if d.side != ours or len(combat.legal_view()) == 1:
                combat.act(script.act(combat) if d.side != ours else agent.act(combat))
                continue
            decisions += 1
            chosen, ranked, _ = agent._decide(combat)  # the estimates behind the choice, not only the choice
            # the scripted choice is the candidate every other is measured against: its paired gain is exactly 0
            # (candidates that tie with it on every dice sample come after it, in the scripted order)
            scripted = next((s.action for s in ranked if s.gain == 0.0), chosen)
            if chosen != scripted:
                seeds = range(1000, 1000 + playouts)
                gains = [playout(combat, chosen, d.side, rid, s) - playout(combat, scripted, d.side, rid, s)
                         for s in seeds]
                kinds[f"{chosen.verb} <- {scripted.verb}"].append((ranked[0].gain, float(np.mean(gains))))
            combat.act(chosen)
    print(f"{name}, {spec}: {decisions} decisions with a choice in {games} games, "
          f"{sum(len(v) for v in kinds.values())} departures from the scripted choice, {playouts} play-outs each")
    print("| departure (chosen <- scripted) | count | estimated gain | play-out gain [+- 1.96 se] |")
    print("|---|---|---|---|")
    every: list[tuple[float, float]] = []
    for kind, rows in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        every += rows
        print(row(kind, rows))
    if every:
        print(row("**all**", every))


def row(kind: str, rows: list[tuple[float, float]]) -> str:
    """A Markdown row: the kind, how many, the mean estimate, the mean play-out gain with its interval."""
    est = np.array([r[0] for r in rows])
    real = np.array([r[1] for r in rows])
    half = 1.96 * real.std(ddof=1) / np.sqrt(len(real)) if len(real) > 1 else float("nan")
    low, high = real.mean() - half, real.mean() + half
    return f"| {kind} | {len(rows)} | {est.mean():+.3f} | {real.mean():+.3f} [{low:+.3f}, {high:+.3f}] |"


if __name__ == "__main__":
    main()
