"""The legal set as a choice in steps: every action reachable exactly once, small steps, typed filters."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ENCOUNTERS, SYSTEMS
from trpg_arena.agents import make_agent
from trpg_arena.rules import Action, Combat
from trpg_arena.table.menu import FLAT_LIMIT, Menu, MenuError

MOST_LINES = 24  # what fits a terminal: measured worst case 23 (a 24-square row of reincarnator's brawl)


def combat_after(encounter: str, seed: int, decisions: int) -> Combat:
    """A combat of `encounter` after `decisions` random decisions (or at its last open decision)."""
    c = Combat(encounter, seed=seed)
    agent = make_agent("random", c.system.info.id, seed=seed)
    for _ in range(decisions):
        if c.over:
            break
        before = c.clone()
        c.act(agent.act(c))
        if c.over:
            return before
    return c


def leaves(menu: Menu) -> list[Action]:
    """Every action the menu leads to, walking every line of every step."""
    out = []
    for choice in menu.step().choices:
        if choice.action is not None:
            out.append(choice.action)
        else:
            assert menu.choose(choice.key) is None
            out += leaves(menu)
            assert menu.back()
    return out


@given(encounter=st.sampled_from(ENCOUNTERS), seed=st.integers(0, 10_000), decisions=st.integers(0, 60))
def test_every_legal_action_is_reached_once_and_no_step_is_long(encounter: str, seed: int, decisions: int) -> None:
    c = combat_after(encounter, seed, decisions)
    menu = Menu(c)
    reached = leaves(menu)
    assert sorted(reached, key=repr) == sorted(c.legal_actions(), key=repr)
    assert menu.largest_step() <= MOST_LINES
    assert menu.path == ()  # walking it left it at the first step


@pytest.mark.parametrize("rid", SYSTEMS)
def test_lines_carry_counts_and_sentences(rid: str) -> None:
    c = combat_after(f"{rid}/skirmish", 1, 3)
    menu = Menu(c)
    step = menu.step()
    assert sum(ch.count for ch in step.choices) == len(c.legal_actions())
    for ch in step.choices:
        if ch.action is not None:
            assert ch.text == c.system.describe(c, ch.action) and ch.count == 1
        else:
            assert ch.count > 1 and ch.text.startswith("e.g. ")
    assert step.to_json()["choices"][0]["key"] == "1"


def biggest_decision(encounter: str) -> Combat:
    """The first decision of a seeded random game with more legal actions than one short list holds."""
    for seed in range(20):
        c = Combat(encounter, seed=seed)
        agent = make_agent("random", c.system.info.id, seed=seed)
        while not c.over:
            if len(c.legal_actions()) > 100:
                return c
            c.act(agent.act(c))
    raise AssertionError(f"no decision of {encounter} has more than 100 actions")


def test_a_destination_among_many_squares_is_row_then_square() -> None:
    c = biggest_decision("reincarnator/skirmish")
    menu = Menu(c)
    verbs = {ch.label: ch for ch in menu.step().choices}
    assert menu.step().facet == "verb" and "move" in verbs
    menu.choose(verbs["move"].key)
    assert menu.step().facet == "row"
    menu.choose("1")
    assert menu.step().facet in ("destination", "action")
    assert all(a.verb == "move" for a in menu.actions)
    assert len({a.dest[1] for a in menu.actions}) == 1


def test_typed_words_narrow_and_a_square_is_typed_as_x_y() -> None:
    c = biggest_decision("reincarnator/skirmish")
    moves = [a for a in c.legal_actions() if a.verb == "move"]
    x, y = moves[-1].dest
    menu = Menu(c)
    assert menu.filter(f"move {x},{y}") == moves[-1]  # one action left: that is the choice
    assert menu.path == ()
    assert menu.filter("move") is None and all(a.verb.endswith("move") for a in menu.actions)
    assert menu.path == ("'move'",)
    before = menu.step()
    with pytest.raises(MenuError, match="nothing matches 'zzz'"):
        menu.filter("zzz")
    assert menu.step() == before  # a failed filter changes nothing
    with pytest.raises(MenuError, match="no choice '99'"):
        menu.choose("99")
    assert menu.back() and not menu.back()


def test_a_few_actions_are_listed_as_they_are() -> None:
    c = Combat("moonlit/duel", seed=0)
    legal = c.legal_actions()
    menu = Menu(c, legal[:FLAT_LIMIT])
    step = menu.step()
    assert step.facet == "action" and [ch.action for ch in step.choices] == legal[:FLAT_LIMIT]
    assert menu.choose("1") == legal[0]


def test_one_action_left_is_counted_in_the_singular() -> None:
    """One legal action reads "1 choice, 1 action"; a filter matching nothing, "the 1 action left"."""
    c = Combat("moonlit/duel", seed=0)
    menu = Menu(c, c.legal_actions()[:1])
    assert menu.step().title == "choose an action (1 choice, 1 action)"
    with pytest.raises(MenuError, match="among the 1 action left$"):
        menu.filter("zzz")
