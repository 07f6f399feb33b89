"""The Combat state machine on the toy system: atomic act, rollback, snapshots, clones, errors."""

from __future__ import annotations

import json

import pytest

from tests.kernel.toy import TOY_ENCOUNTER
from trpg_arena.rules import (
    Action,
    Combat,
    DiceScriptError,
    EncounterError,
    IllegalActionError,
    InvalidActionError,
    ScriptedDice,
    SnapshotError,
    UnknownRulesetError,
    load_encounter,
)

pytestmark = pytest.mark.usefixtures("toy")


def test_decision_legal_actions_and_act() -> None:
    c = Combat(TOY_ENCOUNTER, dice=ScriptedDice.d(6, 5))
    assert c.decision is not None and c.decision.actor == "a"
    assert c.legal_actions() == [Action("pass"), Action("hit", target="b")]
    events = c.act(Action("hit", target="b"))
    assert [e.kind for e in events] == ["decision", "roll", "damage_applied"]
    assert events[0].text == "a: hit -> b"
    assert c.decision.actor == "b"


def test_illegal_and_invalid_actions_change_nothing() -> None:
    c = Combat(TOY_ENCOUNTER, seed=1)
    before = json.dumps(c.snapshot())
    with pytest.raises(IllegalActionError, match="not legal for a"):
        c.act(Action("hit", target="a"))
    with pytest.raises(InvalidActionError):
        c.act("hit b")  # type: ignore[arg-type]
    assert json.dumps(c.snapshot()) == before


def test_act_rolls_back_when_rules_raise_midway() -> None:
    c = Combat(TOY_ENCOUNTER, dice=ScriptedDice.d(6, 5))
    c.act(Action("hit", target="b"))
    before = json.dumps(c.snapshot())
    c.act(Action("pass"))
    mid = json.dumps(c.snapshot())
    with pytest.raises(DiceScriptError, match="ran out"):
        c.act(Action("hit", target="b"))  # needs a die the script does not have
    assert json.dumps(c.snapshot()) == mid != before


def test_snapshot_restore_and_clone() -> None:
    c = Combat(TOY_ENCOUNTER, seed=4)
    for _ in range(5):
        c.act(c.legal_actions()[-1])
    r = Combat.restore(json.loads(json.dumps(c.snapshot())))
    k = c.clone()
    for x in (c, r, k):
        while not x.over:
            x.act(x.legal_actions()[-1])
    assert [e.json_line() for e in c.log] == [e.json_line() for e in r.log] == [e.json_line() for e in k.log]


def test_over_combat_accepts_nothing() -> None:
    c = Combat(TOY_ENCOUNTER, seed=2)
    while not c.over:
        c.act(c.legal_actions()[-1])
    assert c.legal_actions() == [] and c.decision is None and c.result in ("A", "B")
    with pytest.raises(IllegalActionError, match="over"):
        c.act(Action("pass"))


@pytest.mark.parametrize("snap", [{}, {"format": "nope"}, {"format": "trpg-arena-snapshot/1"},
                                  {"format": "trpg-arena-snapshot/1", "ruleset": "toy", "encounter": {},
                                   "dice": {}, "state": {}, "log": []}])
def test_corrupt_snapshots_raise_snapshot_error(snap: dict) -> None:
    with pytest.raises(SnapshotError):
        Combat.restore(snap)


def test_encounter_errors_are_located() -> None:
    bad = {**TOY_ENCOUNTER, "combatants": [{"id": "a", "side": "A", "hp": "many"}, {"id": "b", "side": "B"}]}
    with pytest.raises(EncounterError) as e:
        load_encounter(bad)
    assert "combatants[0] (id 'a').hp" in str(e.value) and "<dict>" in str(e.value)
    with pytest.raises(UnknownRulesetError, match="ruleset"):
        load_encounter({**TOY_ENCOUNTER, "ruleset": "chess"})
    with pytest.raises(EncounterError, match="missing field"):
        load_encounter({"combatants": []})
    with pytest.raises(EncounterError, match="unexpected|Extra"):
        load_encounter({**TOY_ENCOUNTER, "colour": "red"})


def test_options_override_is_validated() -> None:
    c = Combat(TOY_ENCOUNTER, seed=0, options={"round_cap": 1})
    assert c.encounter.options.round_cap == 1
    with pytest.raises(EncounterError, match="options.round_cap"):
        Combat(TOY_ENCOUNTER, seed=0, options={"round_cap": 0})


def test_toy_env_through_gymnasium_checker() -> None:
    from gymnasium.utils.env_checker import check_env

    from trpg_arena.envs.gym_env import TrpgArenaEnv

    env = TrpgArenaEnv("toy", encounter=TOY_ENCOUNTER, illegal_action="penalize")
    check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and info["action_mask"].sum() == 2


def test_toy_aec_passes_pettingzoo_api_and_seed_tests() -> None:
    from pettingzoo.test import api_test, seed_test

    from trpg_arena.envs.aec_env import TrpgArenaAEC

    api_test(TrpgArenaAEC("toy", encounter=TOY_ENCOUNTER), num_cycles=100)
    seed_test(lambda: TrpgArenaAEC("toy", encounter=TOY_ENCOUNTER), num_cycles=50)


def test_mcts_agent_plays_legal_moves_without_touching_the_live_dice() -> None:
    from trpg_arena.agents import make_agent

    c = Combat(TOY_ENCOUNTER, seed=3)
    twin = Combat(TOY_ENCOUNTER, seed=3)
    agent = make_agent("mcts", "toy", seed=1)
    a = agent.act(c)
    assert c.is_legal(a)
    c.act(a)
    twin.act(a)
    assert [e.json_line() for e in c.log] == [e.json_line() for e in twin.log]


def _play_out(c: Combat) -> list[str]:
    while not c.over:
        c.act(c.legal_actions()[-1])
    return [e.json_line() for e in c.log]


def test_trim_log_keeps_numbering_counts_and_play() -> None:
    full = Combat(TOY_ENCOUNTER, seed=4)
    trimmed = Combat(TOY_ENCOUNTER, seed=4)
    for i in range(6):
        for c in (full, trimmed):
            c.act(c.legal_actions()[0 if i % 3 else -1])  # mostly passes, so the toy fight lasts
        trimmed.trim_log(2)
        assert len(trimmed.log) <= 2 + 4  # what the next act adds on top of the kept events
    assert [e.seq for e in trimmed.log] == [e.seq for e in full.log[-len(trimmed.log):]]
    assert trimmed.decision_count == full.decision_count == sum(e.kind == "decision" for e in full.log)
    tail = len(trimmed.log)
    ends = _play_out(full), _play_out(trimmed)
    assert ends[1] == ends[0][len(ends[0]) - len(ends[1]):] and len(ends[1]) > tail
    with pytest.raises(ValueError):
        trimmed.trim_log(-1)


def test_trimmed_combat_snapshots_clones_and_rolls_back() -> None:
    c = Combat(TOY_ENCOUNTER, dice=ScriptedDice.d(6, 5))
    c.act(Action("hit", target="b"))
    c.act(Action("pass"))
    c.trim_log(1)  # drops events after the rollback base point (the start)
    mid = json.dumps(c.snapshot())
    with pytest.raises(DiceScriptError, match="ran out"):
        c.act(Action("hit", target="b"))
    assert json.dumps(c.snapshot()) != mid  # the replay re-logs the dropped events since the base ...
    assert [e.seq for e in c.log] == list(range(len(c.log)))  # ... with their own numbers
    assert c.decision_count == 2 and c.decision is not None and c.decision.actor == "a"

    k = Combat(TOY_ENCOUNTER, seed=4)
    for _ in range(5):
        k.act(k.legal_actions()[-1])
    k.trim_log(3)
    snap = json.loads(json.dumps(k.snapshot()))
    assert snap["log_start"] == k.log[0].seq and snap["decisions"] == 5
    r = Combat.restore(snap)
    assert r.decision_count == 5 and r.log == k.log
    assert _play_out(r) == _play_out(k.clone()) == _play_out(k)


def test_a_combat_that_records_nothing_plays_the_same() -> None:
    loud, quiet = Combat(TOY_ENCOUNTER, seed=5), Combat(TOY_ENCOUNTER, seed=5, record=False)
    assert loud.recording and not quiet.recording and quiet.log == []
    while not loud.over:
        assert loud.legal_actions() == quiet.legal_actions()
        a = loud.legal_actions()[-1]
        assert loud.act(a) and quiet.act(a) == []
        k = quiet.clone()
        assert not k.recording
    assert quiet.snapshot()["state"] == loud.snapshot()["state"] and quiet.dice.state() == loud.dice.state()
    assert quiet.decision_count == loud.decision_count and quiet.result == loud.result and quiet.log == []
    again = Combat(TOY_ENCOUNTER, seed=5, record=False)
    again.recording = True
    again.act(again.legal_actions()[-1])
    assert again.recording and [e.kind for e in again.log][0] == "decision"
