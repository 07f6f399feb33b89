"""A stored session whose seat's agent cannot be built any more (its model file is gone) still opens.

The GM can then give that seat another agent (`--resume ID --seat npc=scripted`, ``PUT /seats/npc``), as
the README says; before, `Session.load` rebuilt every stored agent first and refused the whole session. If the
file comes back, the agent goes on from its stored state: the game is the one an uninterrupted table plays.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from trpg_arena.agents.learned.ppo import PolicyModelError
from trpg_arena.rules import Decision
from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore

SHIPPED = Path(__file__).resolve().parents[2] / "agents" / "learned" / "models"


def seat_of(s: Session, key: str) -> Callable[[Decision], bool]:
    """`Session.run`'s ``until``: a decision of the seat `key` ("pc" or "npc")."""
    return lambda d: s.seat_for(d.actor)[0] == key


def start(tmp_path: Path) -> tuple[Session, Path]:
    """Moonlit's duel with the NPC played by a copy of the shipped policy, after its first few decisions."""
    model = tmp_path / "policy.npz"
    shutil.copy(SHIPPED / "ppo-moonlit.npz", model)
    s = Session("moonlit/duel", seed=5, pc="scripted", npc=f"ppo:model={model}", store=SessionStore(tmp_path / "t.db"))
    s.run(max_decisions=8)
    s.run(until=seat_of(s, "pc"))
    assert "npc" in s.records[-1]["agents"], "the policy has acted and its state is stored"
    return s, model


def test_the_session_opens_and_the_seat_takes_another_agent(tmp_path: Path) -> None:
    s, model = start(tmp_path)
    model.unlink()
    again = Session.load(SessionStore(tmp_path / "t.db"), s.id)
    with pytest.raises(PolicyModelError, match="no policy model"):
        again.run(until=lambda d: False)  # the seat says why it cannot play when asked to
    again.set_seat("npc", "scripted")
    again.run()
    assert again.combat.over
    assert Session.load(SessionStore(tmp_path / "t.db"), s.id).combat.over


def test_the_agent_goes_on_from_its_stored_state_when_its_file_is_back(tmp_path: Path) -> None:
    s, model = start(tmp_path)
    kept = model.read_bytes()
    model.unlink()
    again = Session.load(SessionStore(tmp_path / "t.db"), s.id)
    assert again.run(until=seat_of(again, "npc")) > 0  # the other side plays on while the policy cannot be built
    model.write_bytes(kept)
    later = Session.load(SessionStore(tmp_path / "t.db"), s.id)
    later.run()
    s.run()  # the same table, never interrupted
    assert [e.json_line() for e in later.combat.log] == [e.json_line() for e in s.combat.log]
