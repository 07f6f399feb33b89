"""`u` at a dice prompt of the terminal takes back only the action waiting for its dice (as `c` would).

Before, it took back the decision before it too, with the roll already typed for it.
"""

from __future__ import annotations

from pathlib import Path

from tests.experiments.test_autopilot import Gm, only_session


def test_undo_at_a_dice_prompt_reopens_the_action_waiting_for_its_dice(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    gm = Gm("investigator/duel", "--pc", "human", "--npc", "scripted", "--no-review", "--seed", "3", db=db,
            out=tmp_path, timeout=60)
    assert gm.wait() == "menu" and "phase_offer" in gm.screen
    gm.send("t")  # the table's dice: every roll typed
    assert gm.wait() == "menu"
    gm.send(gm.key_of("shoot"))
    assert gm.wait() == "menu"
    gm.send("1")  # shoots the cultist: her roll is asked for
    assert gm.wait() == "dice"
    gm.send("50")
    while gm.wait() == "dice":  # the cultist's answer, rolled at the table too
        gm.send("50")
    assert gm.kind == "menu" and "turn_action" in gm.screen, gm.screen[-800:]
    gm.send(gm.key_of("prepare"))  # prepares aim: a roll asked for
    assert gm.wait() == "dice" and "prepares aim" in gm.screen
    gm.send("u")
    assert gm.wait() == "menu", gm.screen[-800:]
    assert "undone 1 decision: back to ada" in gm.screen and "turn_action" in gm.screen, gm.screen[-800:]
    gm.send("q")
    assert gm.wait() == "eof"
    assert [r["action"]["verb"] for r in only_session(db).records if r["actor"] == "ada"] == ["shoot"]
