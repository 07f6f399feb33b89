"""`wide`: the value nominates its best few departures, play-outs against the scripted policy pick among them."""

from __future__ import annotations

import numpy as np

from tests.played_out import played_out, scripted_positions
from trpg_arena.agents import make_agent

RID = "moonlit"


def test_wide_departures_gain_when_played_out_on_other_dice() -> None:
    # The departures `wide` takes were chosen on the agent's own dice; judged again here on 30 others,
    # against the scripted choice on the same dice, they must gain on the whole.
    wide = make_agent("trained:hard:playouts=16:wide=2", RID, seed=0)
    script = make_agent("scripted", RID, seed=0)
    gains: list[float] = []
    for combat in scripted_positions(f"{RID}/duel", 4, every=4):
        side = combat.decision.side
        action, scripted = wide.act(combat), script.act(combat)
        if action == scripted:
            continue
        gains.append(float(np.mean([played_out(combat, action, side, s) - played_out(combat, scripted, side, s)
                                    for s in range(7000, 7030)])))
    assert len(gains) >= 3, gains  # it does leave the script
    assert np.mean(gains) > 0.0, gains


def test_wide_is_off_by_default_and_checked_like_every_parameter() -> None:
    assert make_agent("trained:hard", RID, seed=0).wide == 0
    agent = make_agent("trained:hard:playouts=8:wide=3:pz=1", RID, seed=0)
    assert (agent.wide, agent.playouts, agent.pz) == (3, 8, 1.0)
