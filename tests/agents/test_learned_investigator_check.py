"""Every departure played out 60 decisions deep before it is taken, on investigator's skirmish."""

from __future__ import annotations

import numpy as np

from tests.played_out import kept_and_refused
from trpg_arena.agents import make_agent

RID = "investigator"
CHECKED = "trained:normal:playouts=16:verify=1:depth=60"


def test_on_investigators_skirmish_the_capped_check_keeps_departures_that_gain_and_refuses_the_others() -> None:
    # The value's departures on the skirmish mix gains with losses (ending the turn for an attack lost
    # when played out to the end, for preparing gained). The check plays them out for 60 decisions
    # (most of a 72-decision skirmish) and lets the value score the rest. Judged here on other dice
    # than the agent's own and played to the end, what it keeps gains (+0.05 a departure over 8) and
    # what it refuses does not (-0.01 over 21), where the value alone would take them all.
    loose = make_agent("trained:normal:playouts=0:verify=0", RID, seed=0)
    checked = make_agent(CHECKED, RID, seed=0)
    kept, refused = kept_and_refused(f"{RID}/skirmish", loose, checked)
    assert len(kept) >= 5 and len(refused) >= 10, (kept, refused)  # the value proposes both; the check splits them
    assert np.mean(kept) > 0.02 and np.mean(kept) > np.mean(refused) + 0.04, (kept, refused)
