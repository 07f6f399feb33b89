"""The Combat state machine on the toy system: atomic act, rollback, snapshots, clones, errors."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from tests.conftest import SYSTEMS
from tests.kernel.toy import TOY, TOY_ENCOUNTER
from trpg_arena.rules import (
    Action,
    Combat,
    Dice,
    DiceScriptError,
    EncounterError,
    Event,
    IllegalActionError,
    InvalidActionError,
    ScriptedDice,
    SnapshotError,
    UnknownRulesetError,
    load_encounter,
)
from trpg_arena.rules.core.combat import REBASE_EVERY

pytestmark = pytest.mark.usefixtures("toy")


def test_decision_legal_actions_and_act() -> None:
    c = Combat(TOY_ENCOUNTER, dice=ScriptedDice.d(6, 5))
    assert c.decision is not None and c.decision.actor == "a"
    assert c.legal_actions() == [Action("pass"), Action("hit", target="b")]
    events = c.act(Action("hit", target="b"))
    assert [e.kind for e in events] == ["decision", "roll", "damage_applied"]
    assert events[0].text == "a: hit -> b"
    assert c.decision.actor == "b"


def test_filled_in_decisions_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # the toy opens a new decision object every turn, as a system not using `shared_decision` may: a long combat
    # must not keep every one it met
    from trpg_arena.rules.core import combat as kernel

    monkeypatch.setattr(kernel, "DECIDED_KEPT", 3)
    c = Combat(TOY_ENCOUNTER, seed=1)
    actors = []
    for _ in range(8):
        d = c.decision
        assert d is not None and d.side is not None and c.decision is d  # filled in, then read back
        actors.append(d.actor)
        c.act(Action("pass"))
        assert len(c._decided) <= 3
    assert actors == ["a", "b"] * 4


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
    for _ in range(2):
        c.act(c.legal_actions()[-1])
    at = len(c.log)
    r = Combat.restore(json.loads(json.dumps(c.snapshot())))
    k = c.clone()
    assert k.log == [] and k.decision_count == c.decision_count  # a clone copies no past events
    for x in (c, r, k):
        while not x.over:
            x.act(x.legal_actions()[-1])
    assert [e.json_line() for e in c.log] == [e.json_line() for e in r.log]
    assert [e.json_line() for e in k.log] == [e.json_line() for e in c.log[at:]] != []
    assert r.snapshot() == c.snapshot() and k.snapshot()["state"] == c.snapshot()["state"]


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


@pytest.mark.parametrize("name", ["toy", *(f"{rid}/skirmish" for rid in SYSTEMS)])
def test_null_options_are_the_defaults(name: str) -> None:
    """``options:`` left empty in a file (YAML's null) reads as every option at its default, in every system."""
    data = TOY_ENCOUNTER if name == "toy" else load_encounter(name).model_dump(mode="json")
    enc = load_encounter({**data, "options": None})
    assert enc.options == type(enc.options)()


def test_options_override_is_validated() -> None:
    c = Combat(TOY_ENCOUNTER, seed=0, options={"round_cap": 1})
    assert c.encounter.options.round_cap == 1
    with pytest.raises(EncounterError, match="options.round_cap"):
        Combat(TOY_ENCOUNTER, seed=0, options={"round_cap": 0})


def test_toy_env_through_gymnasium_checker() -> None:
    from gymnasium.utils.env_checker import check_env

    from trpg_arena.envs.gym_env import TrpgArenaEnv

    # the toy system declares no feature or action layout: its env uses the per-encounter one
    env = TrpgArenaEnv("toy", encounter=TOY_ENCOUNTER, illegal_action="penalize", layout="encounter")
    check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and info["action_mask"].sum() == 2


def test_toy_aec_passes_pettingzoo_api_and_seed_tests() -> None:
    from pettingzoo.test import api_test, seed_test

    from trpg_arena.envs.aec_env import TrpgArenaAEC

    api_test(TrpgArenaAEC("toy", encounter=TOY_ENCOUNTER, layout="encounter"), num_cycles=100)
    seed_test(lambda: TrpgArenaAEC("toy", encounter=TOY_ENCOUNTER, layout="encounter"), num_cycles=50)


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


def test_mcts_presets_fall_back_to_the_hand_written_value_without_a_model() -> None:
    from trpg_arena.agents import make_agent

    agent = make_agent("mcts:hard", "toy", seed=1)  # the toy system ships no learned value
    assert agent.value == "hand" and agent.prior == "scripted" and agent.scorer is None
    c = Combat(TOY_ENCOUNTER, seed=3)
    assert c.is_legal(agent.act(c))


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


class _BrokenDice(Dice):
    """Seeded dice that raise once `broken` is set: a rules bug in the middle of an act, not an interruption."""

    broken = False

    def roll(self, sides: int, what: str = "", *, roller: str = "", purpose: str = "") -> int:
        if self.broken:
            raise RuntimeError("broken die")
        return super().roll(sides, what)


def _counting_applies(monkeypatch: pytest.MonkeyPatch) -> list[Action]:
    applied: list[Action] = []
    real = TOY.apply

    def apply(combat: Combat, action: Action) -> None:
        applied.append(action)
        real(combat, action)

    monkeypatch.setattr(TOY, "apply", apply)
    return applied


def test_trimmed_combat_snapshots_clones_and_rolls_back() -> None:
    c = Combat(TOY_ENCOUNTER, dice=ScriptedDice.d(6, 5))
    c.act(Action("hit", target="b"))
    c.act(Action("pass"))
    c.trim_log(1)
    mid = json.dumps(c.snapshot())
    with pytest.raises(DiceScriptError, match="ran out"):
        c.act(Action("hit", target="b"))
    assert json.dumps(c.snapshot()) == mid  # scripted dice interrupt: the base was this act's start
    assert c.decision_count == 2 and c.decision is not None and c.decision.actor == "a"

    dice = _BrokenDice(1)
    b = Combat(TOY_ENCOUNTER | {"options": {"round_cap": 50}}, dice=dice)
    for _ in range(3):
        b.act(Action("pass"))
    b.trim_log(1)  # drops events after the rollback base point (the first act's start)
    dice.broken = True
    with pytest.raises(RuntimeError, match="broken die"):
        b.act(b.legal_actions()[-1])
    assert [e.seq for e in b.log] == list(range(len(b.log))) != []  # the replay re-logs the dropped events
    assert b.decision_count == 3

    k = Combat(TOY_ENCOUNTER, seed=4)
    for _ in range(5):
        k.act(k.legal_actions()[-1])
    k.trim_log(3)
    snap = json.loads(json.dumps(k.snapshot()))
    assert snap["log_start"] == k.log[0].seq and snap["decisions"] == 5
    r = Combat.restore(snap)
    assert r.decision_count == 5 and r.log == k.log
    assert _play_out(r) == _play_out(k)


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


def test_the_rollback_base_moves_with_the_combat(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed act replays at most REBASE_EVERY - 1 decisions (none with dice that interrupt); memory stays flat."""
    applied = _counting_applies(monkeypatch)
    long = TOY_ENCOUNTER | {"options": {"round_cap": 2000}}
    for dice, most in ((_BrokenDice(3), REBASE_EVERY - 1), (ScriptedDice.d(6, *[3] * 2000), 0)):
        c = Combat(long, dice=dice)
        for n in range(300):
            c.act(Action("pass"))
            assert len(c._since) <= most + 1
            mid = c.snapshot() | {"dice": c.dice.state()["kind"]}
            applied.clear()
            if isinstance(dice, _BrokenDice):
                dice.broken = True
                with pytest.raises(RuntimeError, match="broken die"):
                    c.act(c.legal_actions()[-1])
                dice.broken = False
            else:
                before = dice.position
                dice.script = dice.script[:before]  # the next roll runs out of script
                with pytest.raises(DiceScriptError):
                    c.act(c.legal_actions()[-1])
                assert dice.position == before
                dice.script += [(6, 3)] * 10
            assert c.snapshot() | {"dice": c.dice.state()["kind"]} == mid
            assert len(applied) - 1 <= most, f"after {n + 1} acts a failed act replayed {len(applied) - 1}"


def test_logged_events_never_change_whatever_the_rules_passed() -> None:
    c = Combat(TOY_ENCOUNTER, seed=1)
    live = [1, 2]
    table = {"x": [3]}
    ev = c.emit("note", "a note", ids=live, table=table, pair=([4], 5))
    live.append(9)
    table["x"].append(9)
    assert ev.data == {"ids": [1, 2], "table": {"x": [3]}, "pair": ([4], 5)}
    for change in (lambda: ev.data.update(ids=[]), lambda: ev.data["ids"].append(3),
                   lambda: ev.data["table"]["x"].clear(), lambda: ev.data["pair"][0].append(1)):
        with pytest.raises(TypeError, match="cannot change"):
            change()
    again = Event.from_json(json.loads(ev.json_line()))
    assert again.data == {"ids": [1, 2], "table": {"x": [3]}, "pair": [[4], 5]}
    with pytest.raises(TypeError):
        again.data["ids"].append(1)
    assert pickle.loads(pickle.dumps(ev)) == ev and copy.deepcopy(ev) == ev
