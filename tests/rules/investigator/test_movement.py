"""Movement, the nine-grid, windows on moves and pursuit (INV-1.5, INV-4.4-4.8, INV-8.2, INV-9.1, INV-10.2)."""

from __future__ import annotations

import pytest

from tests.nx_oracle import reachable
from tests.rules.investigator.helpers import (
    DECLINE,
    DODGE,
    END,
    NO_DEFENSE,
    act,
    at_turn,
    checks,
    encounter,
    events,
    fighter,
    legal,
    melee,
    move,
    play,
    shoot,
    std,
    step,
    verbs,
)
from trpg_arena.rules import Action


@pytest.mark.rule("INV-T5")
def test_INV_T5_nine_grid_and_melee_reach() -> None:
    """INV-T5 / INV-1.5 / INV-8.1: Chebyshev 1 is reach; a corner has three neighbours."""
    for bpos, present in (((6, 6), True), ((7, 5), False)):
        c = play(encounter(std("A", "A", (5, 5), dex=60), std("B", "B", bpos, dex=39, tough=True)))
        at_turn(c, "A")
        assert (melee("B") in c.legal_actions()) is present
    c = play(encounter(std("A", "A", (0, 0), dex=60)))
    at_turn(c, "A")
    assert {a.dest for a in c.legal_actions() if a.verb == "step"} == {(1, 0), (0, 1), (1, 1)}


def _t13(opts: dict | None = None):
    a = std("A", "A", (5, 5), dex=60, weapons=["revolver"], wielded="revolver")
    b = std("B", "B", (6, 5), dex=40, tough=True)
    return play(encounter(a, b, options=opts))


@pytest.mark.rule("INV-T13")
def test_INV_T13_one_step_shoot_and_the_pursuit_window() -> None:
    """INV-T13 / INV-6.4 / INV-4.4 / INV-9.1: a step away opens pursuit only; the shot is judged from the step."""
    c = _t13()
    c.act(shoot("B", "before", (5, 5), (4, 5)))
    d = c.decision
    assert d is not None and d.actor == "B" and d.step == "reaction"
    assert legal(c) == {act("pursuit_attack", "B" if False else "A"), act("pursuit_attack", "A", "knock_down"),
                        act("pursuit_attack", "A", "disarm"), act("pursuit_attack", "A", "push"), DECLINE}
    c.dice.script += [(100, 40), (10, 5)]
    c.act(DECLINE)
    assert fighter(c, "A").pos == (4, 5)
    assert not events(c, "window_open")[1:]
    assert checks(c)[-1].data["bonus"] == 0
    assert fighter(c, "B").hp == 25
    assert fighter(c, "A").steps_this_turn == 1
    assert "step" not in verbs(c) and "move" in verbs(c)
    assert c.dice.remaining == 0


def _t15(apos: tuple[int, int]):
    a = std("A", "A", apos, dex=60, weapons=["knife"], wielded="knife")
    b = std("B", "B", (6, 5), dex=40, tough=True)
    return play(encounter(a, b), [(100, 30), (4, 2)])


@pytest.mark.rule("INV-T15")
def test_INV_T15_one_step_attack() -> None:
    """INV-T15 / INV-8.2 / INV-4.4: a step into reach triggers nothing and is not a moving attack."""
    c = _t15((4, 5))
    at_turn(c, "A")
    c.act(melee("B", "before", (4, 5), (5, 5)))
    assert c.decision is not None and c.decision.step == "defense"
    c.act(NO_DEFENSE)
    assert checks(c)[-1].data["required"] == "Regular"
    assert fighter(c, "B").hp == 28
    assert "step" not in verbs(c) and "move" in verbs(c)
    assert not events(c, "window_open")
    c = _t15((5, 5))
    at_turn(c, "A")
    c.act(melee("B", "after", (5, 5), (4, 5)))
    c.act(NO_DEFENSE)
    d = c.decision
    assert d is not None and d.actor == "B" and d.step == "reaction" and DECLINE in c.legal_actions()
    assert act("pursuit_attack", "A") in c.legal_actions()
    c.act(DECLINE)
    assert fighter(c, "A").pos == (4, 5) and fighter(c, "B").hp == 28


def _t16(opts: dict | None = None, script: list[tuple[int, int]] | None = None):
    a = std("A", "A", (0, 5), dex=60)
    b = std("B", "B", (5, 5), dex=39, tough=True)
    c = play(encounter(a, b, options=opts, start={"combatants": {"B": {"opportunity_used": True,
                                                                         "standard_used": 1}}}), script)
    c.act(move(4, 5))
    assert not events(c, "window_open")
    c.act(melee("B"))
    c.act(NO_DEFENSE)
    assert c.dice.remaining == 0  # type: ignore[attr-defined]
    return c


@pytest.mark.rule("INV-T16")
def test_INV_T16_moving_attack() -> None:
    """INV-T16 / INV-4.8 / INV-8.5: after a long move melee needs Hard (or takes a penalty die)."""
    assert fighter(_t16(script=[(100, 30)]), "B").hp == 30
    assert fighter(_t16(script=[(100, 20), (3, 2)]), "B").hp == 28
    c = _t16({"moving_attack_penalty": "penalty_die"}, [(100, 30), (10, 6)])
    assert fighter(c, "B").hp == 30 and checks(c)[-1].data["result"] == 60


@pytest.mark.rule("INV-T23")
def test_INV_T23_pursuit_attack() -> None:
    """INV-T23 / INV-9.1 / INV-10.5: a pursuit hit stops the step and ends the mover's round."""
    c = play(encounter(std("A", "A", (5, 5), dex=60), std("B", "B", (6, 5), dex=40)),
             [(100, 25), (100, 29), (3, 2)])
    at_turn(c, "A")
    c.act(step(4, 5))
    assert c.decision is not None and c.decision.actor == "B"
    assert "opportunity_attack" not in verbs(c) and "pursuit_attack" in verbs(c)
    c.act(act("pursuit_attack", "A"))
    assert legal(c) == {DODGE, Action("fight_back"), NO_DEFENSE}
    c.act(DODGE)
    a = fighter(c, "A")
    assert a.hp == 8 and a.pos == (5, 5)
    assert a.prepare_used and a.move_used and a.opportunity_used and a.standard_used == 1
    assert fighter(c, "B").standard_used == 1
    d = c.decision
    assert d is not None and d.actor == "B" and d.step == "turn_action"
    assert melee("A") not in c.legal_actions() and {"step", "move"} <= verbs(c)


def _t24(script: list[tuple[int, int]]):
    c = play(encounter(std("A", "A", (5, 5), dex=60), std("B", "B", (6, 5), dex=39),
                       start={"combatants": {"B": {"standard_used": 1}}}), script)
    c.act(move(1, 5))
    assert c.decision is not None and c.decision.actor == "B"
    assert legal(c) == {act("opportunity_attack", "A"), DECLINE}
    c.act(act("opportunity_attack", "A"))
    c.act(DODGE)
    return c


@pytest.mark.rule("INV-T24")
def test_INV_T24_opportunity_attack_on_leaving() -> None:
    """INV-T24 / INV-10.1 / INV-10.2 / INV-10.5 / INV-4.5: half damage; a hit stops the move and the round."""
    c = _t24([(100, 5), (100, 20)])
    a = fighter(c, "A")
    assert a.hp == 9 and a.pos == (5, 5) and a.move_used and a.standard_used == 1
    assert c.decision is not None and c.decision.actor == "B"
    c = _t24([(100, 70), (100, 90)])
    a = fighter(c, "A")
    assert a.pos == (1, 5) and a.standard_used == 0 and fighter(c, "B").opportunity_used


def _t25(script: list[tuple[int, int]]):
    c = play(encounter(std("A", "A", (0, 5), dex=60), std("B", "B", (6, 5), dex=39),
                       start={"combatants": {"B": {"standard_used": 1}}}), script)
    c.act(move(5, 5))
    assert events(c, "move_path")[0].data["path"] == [(1, 4), (2, 3), (3, 3), (4, 4), (5, 5)]
    assert fighter(c, "A").pos == (5, 5) and len(events(c, "window_open")) == 1
    assert legal(c) == {act("opportunity_attack", "A"), DECLINE}
    c.act(act("opportunity_attack", "A"))
    c.act(NO_DEFENSE)
    return c


@pytest.mark.rule("INV-T25")
def test_INV_T25_opportunity_attack_on_entering() -> None:
    """INV-T25 / INV-10.2 / INV-4.6: the path avoids needless triggers; the window opens after the entering step."""
    c = _t25([(100, 80)])
    assert c.decision is not None and c.decision.actor == "A"
    c.dice.script += [(100, 60)]  # type: ignore[attr-defined]
    c.act(melee("B"))
    c.act(NO_DEFENSE)
    assert checks(c)[-1].data["required"] == "Hard"
    c = _t25([(100, 40), (3, 2)])
    assert fighter(c, "A").hp == 9 and fighter(c, "A").pos == (5, 5)
    assert c.decision is not None and c.decision.actor == "B"


@pytest.mark.rule("INV-T33")
def test_INV_T33_steps_long_moves_terrain_and_blocking() -> None:
    """INV-T33 / INV-4.4 / INV-4.5 / INV-1.4: costs, difficult terrain, blocked and occupied squares, walls."""
    diff = {"width": 12, "height": 12, "terrain": {"difficult": [[3, y] for y in range(12)]}}
    c = play(encounter(std("A", "A", (0, 0), dex=60), map=diff))
    at_turn(c, "A")
    leg = legal(c)
    assert move(7, 0) in leg and move(8, 0) not in leg and move(1, 1) not in leg and step(1, 1) in leg
    c.act(step(1, 1))
    # neither move nor step is legal any more, so A's turn ended on its own (only end_turn was left)
    assert fighter(c, "A").move_used and c.decision is not None and c.decision.actor == "Z"
    used = {"opportunity_used": True, "standard_used": 1}
    c = play(encounter(std("A", "A", (0, 0), dex=60), std("B1", "B", (1, 0)), std("B2", "B", (0, 1)),
                       std("B3", "B", (1, 1)),
                       start={"combatants": {"B1": used, "B2": used, "B3": {"conditions": ["unconscious", "prone"]}}}))
    at_turn(c, "A")
    assert "step" not in verbs(c) and move(2, 2) in c.legal_actions()
    for terrain, present in (("wall", False), ("obstacle", True)):
        c = play(encounter(std("A", "A", (0, 0), dex=60), map={"terrain": {terrain: [[1, 0]]}}))
        at_turn(c, "A")
        assert (step(1, 1) in c.legal_actions()) is present


@pytest.mark.rule("INV-T34")
def test_INV_T34_path_selection() -> None:
    """INV-T34 / INV-4.6: fewest triggers, then cost, then the smallest square sequence."""
    c = play(encounter(std("A", "A", (2, 5), dex=60), std("B", "B", (5, 5), dex=39),
                       start={"combatants": {"B": {"standard_used": 1}}}))
    c.act(move(8, 5))
    assert events(c, "move_path")[0].data["path"] == [(3, 4), (4, 3), (5, 2), (6, 3), (7, 4), (8, 5)]
    assert not events(c, "window_open")
    assert fighter(c, "A").move_spent == 6 and fighter(c, "A").moved_long


@pytest.mark.rule("INV-T35")
def test_INV_T35_prone_and_standing_up() -> None:
    """INV-T35 / INV-4.7 / INV-11.8: prone blocks moving and embedded steps; standing uses the move slot."""
    c = play(encounter(std("A", "A", (5, 5), dex=60), std("B", "B", (6, 5), dex=39, tough=True),
                       start={"combatants": {"A": {"conditions": ["prone"]}}}))
    at_turn(c, "A")
    v = verbs(c)
    assert "stand_up" in v and not {"step", "move"} & v
    assert melee("B") in c.legal_actions()
    assert not [a for a in c.legal_actions() if a.verb == "melee" and a.option and ":" in a.option]
    c.act(Action("stand_up"))
    assert not fighter(c, "A").prone
    assert not {"step", "move"} & verbs(c)
    assert melee("B", "before", (5, 5), (5, 4)) in c.legal_actions()


def test_end_turn_only_ends_automatically() -> None:
    """INV-3.3: when end_turn is the only legal action the turn ends without a decision."""
    c = play(encounter(std("A", "A", (5, 5), dex=60), std("B", "B", (6, 5), dex=39, tough=True),
                       start={"combatants": {"A": {"conditions": ["prone"]}}}), [(100, 90)])
    at_turn(c, "A")
    c.act(Action("stand_up"))
    c.act(melee("B"))
    c.act(NO_DEFENSE)
    assert c.decision is not None and c.decision.actor == "B"
    auto = [e for e in c.log if e.kind == "auto_decision" and e.actor == "A"]
    assert auto and auto[-1].data["action"]["verb"] == END.verb


def test_reachability_matches_the_kernel_battlefield() -> None:
    """INV-4.5 / section 5: the compiled grid's reach equals `Battlefield.reachable` on the same graph."""
    import numpy as np

    from trpg_arena.rules import Combat

    c = Combat("investigator/skirmish", seed=0)
    bf = c.battlefield
    grid = bf.grid
    cells = [n for n in bf.graph.nodes if bf.graph.adj[n]]
    rng = np.random.default_rng(0)
    for _ in range(200):
        start = cells[int(rng.integers(len(cells)))]
        blocked = frozenset(cells[int(i)] for i in rng.integers(len(cells), size=6)) - {start}
        budget = int(rng.integers(1, 10))
        want = set(reachable(bf, start, budget, blocked))
        assert set(grid.cells_of(grid.reach(start, budget, grid.mask(blocked)).within[budget])) == want
