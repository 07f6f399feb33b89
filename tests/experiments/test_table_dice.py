"""Dice typed by hand at the terminal: a whole combat of every system, every die typed at its prompt.

Each prompt must say who rolls which dice for what, and the faces typed must be the faces the stored
log shows for that roll; `t` at a dice prompt hands the rest of the action to the program's dice and
keeps what was typed.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from tests.dice_entries import log_dice, typed_faces
from tests.experiments.test_autopilot import Gm, only_session
from trpg_arena.rules import RULESETS

SYSTEMS = sorted(r for r in RULESETS if not r.startswith("_"))
ASKED = re.compile(r"roll at the table: (\S+(?: \S+)?) rolls (\d+)D(\d+)( \(tens die\))? for (.+?)(?: \(after .*)? +"
                   r"\(each die")  # two spaces before '(each die', or one where the line was wrapped there


def _asked(screen: str) -> dict[str, object]:
    """The request the screen just showed, read back as the API names its fields."""
    found = ASKED.findall(re.sub(r"\s*\n\s*", " ", screen))
    assert found, f"no named dice request on the screen:\n{screen[-800:]}"
    roller, count, sides, tens, purpose = found[-1]
    return {"roller": roller, "count": int(count), "sides": int(sides), "what": "tens" if tens else "",
            "purpose": purpose}


@pytest.mark.parametrize("rid", SYSTEMS)
def test_a_whole_combat_with_every_die_typed_at_the_terminal(tmp_path: Path, rid: str) -> None:
    db = tmp_path / "s.db"
    gm = Gm(f"{rid}/duel", "--pc", "scripted", "--npc", "scripted", "--no-review", "--dice", "--seed", "4",
            db=db, out=tmp_path, timeout=60)
    rng = random.Random(rid)
    entries: list[tuple[dict[str, object], list[int]]] = []
    while gm.wait() == "dice":
        request = _asked(gm.screen)
        assert gm.match is not None and gm.match.group(0).rstrip("> ").endswith(f"for {request['roller']}")
        typed, faces = typed_faces(request, rng)
        entries.append((request, faces))
        gm.send(typed)
    assert gm.kind == "over" and len(entries) >= 3, gm.screen[-800:]
    gm.send("")
    assert gm.wait() == "eof"
    session = only_session(db)
    typed_all = [(face, request) for request, faces in entries for face in faces]
    first = min((r["n"] for r in session.records), default=0)
    shown = [(face, ev) for rec, events, _ in session.replay() if rec is not None for ev in events
             for face in log_dice(dict(ev.data or {}))]
    assert first == 0 and [f for f, _ in shown] == [f for f, _ in typed_all]
    for (_, ev), (_, request) in zip(shown, typed_all):
        roller = str(request["roller"]).removeprefix("side ")
        assert ev.actor == roller or roller in ev.text, (request, ev.text)


def test_t_at_a_dice_prompt_lets_the_program_roll_the_rest_and_keeps_the_faces_typed(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    gm = Gm("moonlit/duel", "--pc", "scripted", "--npc", "scripted", "--no-review", "--dice", "--seed", "3",
            db=db, out=tmp_path, timeout=60)
    assert gm.wait() == "dice" and _asked(gm.screen)["roller"] == "kei"
    gm.send("6 5")
    assert gm.wait() == "dice" and _asked(gm.screen)["roller"] != "kei"  # the same decision's next roll
    gm.send("t")
    gm.wait()
    assert "dice are now rolled by the program" in gm.screen and "dice by hand: 6 5" in gm.screen
    gm.send("q")
    gm.child.close()
    record = only_session(db).records[0]
    assert record["faces"] == [[6, 6], [6, 5]] and not record["by_hand"]
