"""The kernel's shared tables hand out one object per action or decision (what identity lookups rely on)."""

from __future__ import annotations

from typing import Any, NamedTuple

from trpg_arena.rules.core.values import Action, Decision, remember, shared_actions, shared_decision


class Pair(NamedTuple):
    weapon: str
    flag: str


def test_shared_actions_hand_out_one_typed_object_per_action() -> None:
    typed_calls: list[tuple[str, Any]] = []

    def typed(verb: str, option: Any) -> Any:
        typed_calls.append((verb, option))
        return Pair(*option) if type(option) is tuple else option

    act = shared_actions(typed)
    a = act("hit", "x", None, ("sword", "all_out"))
    assert type(a.option) is Pair and a == Action("hit", "x", None, ("sword", "all_out"))
    assert act("hit", "x", None, ("sword", "all_out")) is a  # looked up by the wire tuple
    assert act("hit", "x", option=Pair("sword", "all_out")) is a  # or by the typed option, which equals it
    assert typed_calls == [("hit", ("sword", "all_out"))]  # typed once, when the action is first made
    other = shared_actions()("hit", "x", None, ("sword", "all_out"))
    assert other == a and other is not a and type(other.option) is tuple  # each system its own table and types


def test_a_full_action_table_starts_over() -> None:
    act = shared_actions(limit=2)
    first = act("a")
    act("b")
    assert act("a") is first
    act("c")  # the table is full: it starts over with this one
    again = act("a")
    assert again == first and again is not first


def test_shared_decision_is_one_object_per_actor_step_and_prompt() -> None:
    d = shared_decision("ann", "turn", "ann's turn")
    assert d == Decision("ann", "turn", "ann's turn")
    assert shared_decision("ann", "turn", "ann's turn") is d
    assert shared_decision("ann", "turn", "ann's go") is not d


def test_remember_keeps_results_until_the_memo_is_full_then_starts_over() -> None:
    memo: dict[str, int] = {}
    assert remember(memo, "a", 1, 2) == 1 and remember(memo, "b", 2, 2) == 2
    assert memo == {"a": 1, "b": 2}
    assert remember(memo, "c", 3, 2) == 3  # full: emptied first, then kept
    assert memo == {"c": 3}
