"""investigator's `trained:hard` plays the other side's scripted reply before it scores, and what that buys."""

from __future__ import annotations

from collections import Counter

import numpy as np

from tests.played_out import kept_and_refused, played_out, scripted_positions
from trpg_arena.agents import make_agent
from trpg_arena.rules import Action, Combat

RID = "investigator"
# `normal` before the reply: the look-ahead stops where the mover's turn ends (horizon 12)
EARLIER = "trained:hard:reply=0:horizon=12"


def gain(combat: Combat, action: Action, scripted: Action, side: str) -> float:
    """What `action` gains over the scripted choice, each played out to the end 40 times on other dice."""
    return float(np.mean([played_out(combat, action, side, s) - played_out(combat, scripted, side, s)
                          for s in range(5000, 5040)]))


def test_investigators_normal_leaves_the_script_where_its_reply_costs_and_those_departures_gain() -> None:
    # A look-ahead that stops where the mover's turn ends cannot see what the other side does next: a turn
    # ended in the enemy's reach. `normal` plays the other side's scripted reply before the value scores
    # (reply=1, horizon=24). On the first 6 scripted duels it leaves the script at 17 positions where the
    # earlier `normal` keeps it, most of them the shot with a step before it (`shoot before:W` for the
    # script's plain shot, +0.16 a departure played out) or a step before the turn ends (+0.16); all
    # its departures together gained +2.55 win chance over the 110 positions, the earlier `normal`'s +0.40.
    # Against scripted that was 68.5 % of 400 fresh duels (seed 2420000), where the earlier `normal` had
    # 57.0 % (seed 2410000).
    normal = make_agent("trained:hard", RID, seed=0)
    earlier = make_agent(EARLIER, RID, seed=0)
    assert (normal.reply, normal.horizon) == (1, 24)
    ours_only: list[float] = []
    kinds: Counter[str] = Counter()
    total = {"normal": 0.0, "earlier": 0.0}
    for combat in scripted_positions(f"{RID}/duel", 6):
        side = combat.decision.side
        action, ranked, _ = normal._decide(combat)  # the ranking names the scripted choice (its paired gain is 0)
        scripted = next((s.action for s in ranked if s.gain == 0.0), action)
        before = earlier.act(combat)
        gains = {a: gain(combat, a, scripted, side) for a in {action, before} if a != scripted}
        total["normal"] += gains.get(action, 0.0)
        total["earlier"] += gains.get(before, 0.0)
        if action != scripted and before == scripted:
            ours_only.append(gains[action])
            kinds[f"{action.verb} <- {scripted.verb}"] += 1
    assert len(ours_only) >= 10, (ours_only, kinds)  # the reply makes `normal` leave the script more often
    assert np.mean(ours_only) > 0.08, (ours_only, kinds)  # and where it does, it gains
    assert kinds["step <- end_turn"] >= 2, kinds  # a step first: what the reply it plays makes worth it
    assert total["normal"] > total["earlier"] + 1.0, total


def test_on_investigators_skirmish_the_capped_check_keeps_departures_that_gain_and_refuses_the_others() -> None:
    # The play-out check (verify=1, not in the presets) on the earlier `normal`: its departures on the
    # skirmish mix gains with losses (ending the turn for an attack lost when played out to the end, for
    # preparing gained). The check plays them out for 60 decisions (most of a 72-decision skirmish) and
    # lets the value score the rest. Judged here on other dice than the agent's own and played to the end,
    # what it keeps gains (+0.05 a departure over 8) and what it refuses does not (-0.01 over 21), where
    # the value alone would take them all. On `normal` with the reply the check's kept departures gained
    # +0.004: the reply already leaves out most of what the check would refuse.
    loose = make_agent(f"{EARLIER}:playouts=0:verify=0", RID, seed=0)
    checked = make_agent(f"{EARLIER}:playouts=16:verify=1:depth=60", RID, seed=0)
    kept, refused = kept_and_refused(f"{RID}/skirmish", loose, checked)
    assert len(kept) >= 5 and len(refused) >= 10, (kept, refused)  # the value proposes both; the check splits them
    assert np.mean(kept) > 0.02 and np.mean(kept) > np.mean(refused) + 0.04, (kept, refused)
