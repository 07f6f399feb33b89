"""`mcts` on the learned value: the trained agent's candidates at the root, its choice kept unless beaten,
the budget counted in simulations (not seconds), and a restored agent that plays on exactly."""

from __future__ import annotations

import json

import numpy as np
import pytest

from trpg_arena.agents import make_agent
from trpg_arena.agents.search.presets import PRESETS
from trpg_arena.rules import Combat

# a trained-rooted search kept cheap: 3 candidates, 4 dice samples each, 12 playouts
ROOTED = "mcts:simulations=12:depth=4:value=learned:prior=trained:candidates=3:samples=4"


def open_decision(name: str, seed: int, steps: int = 6) -> Combat:
    """A combat after some scripted decisions, at a decision with a choice."""
    c = Combat(name, seed=seed)
    rid = c.system.info.id
    agents = {side: make_agent("scripted", rid, seed=seed + i) for i, side in enumerate(c.sides)}
    for _ in range(steps):
        if c.over:
            break
        c.act(agents[c.decision.side].act(c))
    while not c.over and len(c.legal_view()) < 2:
        c.act(c.legal_view()[0])
    assert not c.over
    return c


def twin(agent, spec: str, rid: str):
    """A second agent in exactly `agent`'s state (its scorer too)."""
    other = make_agent(spec, rid, seed=12345)
    other.set_state(json.loads(json.dumps(agent.get_state())))
    return other


@pytest.mark.parametrize("preset", ["normal", "hard", "deadly"])
def test_presets_from_normal_up_stand_on_the_learned_value_where_a_model_ships(preset: str) -> None:
    agent = make_agent(f"mcts:{preset}", "investigator", seed=1)
    assert agent.value == "learned" and agent.prior == "trained" and agent.scorer is not None
    # the anchor is the system's trained:hard (its margin, z, ...; no temperature) with the search's own budget
    # (the candidates and samples of trained's looks before the presets' re-cut; a system's own candidates for
    # trained:deadly are not the search's). On investigator `normal` and `deadly` keep the look before the other
    # side's reply was played (reply=0, horizon 12), the anchor their rows were measured with; `hard` is rooted in
    # trained:deadly itself (the reply over 16 candidates; then called trained:hard), the anchor its skirmish
    # series against it was played with
    if preset == "hard":
        assert (agent.candidates, agent.samples, agent.pin) == (16, 32, 0)
        trained = make_agent("trained:deadly", "investigator", seed=1)
        assert (agent.scorer.reply, agent.scorer.horizon) == (1, 24)
    else:
        assert (agent.candidates, agent.samples) == (PRESETS[preset]["candidates"], PRESETS[preset]["samples"])
        budget = f"candidates={PRESETS[preset]['candidates']}:samples={PRESETS[preset]['samples']}"
        trained = make_agent(f"trained:hard:{budget}", "investigator", seed=1)
        assert (agent.scorer.reply, agent.scorer.horizon) == (0, 12)
    for key in ("candidates", "samples", "z", "margin", "through", "flat", "temperature"):
        assert getattr(agent.scorer, key) == getattr(trained, key), key
    easy = make_agent("mcts:easy", "investigator", seed=1)
    assert easy.value == "hand" and easy.scorer is None


@pytest.mark.parametrize("name", ["investigator/duel", "kiai/skirmish"])
def test_the_root_holds_the_trained_candidates_and_keeps_its_choice_unless_beaten(name: str) -> None:
    c = open_decision(name, seed=4)
    rid = c.system.info.id
    spec = ROOTED + ":margin=100"  # a deviation would have to win by 100 standard errors: never
    agent = make_agent(spec, rid, seed=3)
    judge = twin(agent, spec, rid)
    judge.scorer.policy = judge.policy  # as the search does: the scorer plays turns with the search's policy
    choice, ranked, _ = judge.scorer.choose(c)
    snap = json.dumps(c.snapshot(), sort_keys=True)
    p = agent.propose(c)
    assert json.dumps(c.snapshot(), sort_keys=True) == snap, "the search changed the live combat"
    assert p.action == choice
    assert {a.action for a in p.alternatives} <= {s.action for s in ranked}, "a runner-up outside the candidates"
    assert "12 new" in p.reasons[0], p.reasons  # every simulation of the budget was played
    assert p.reasons[-1] == "the trained agent agrees"
    # without the margin the search may leave the choice, but only for another of the candidates
    free = make_agent(ROOTED + ":margin=0", rid, seed=3)
    assert free.propose(c).action in {s.action for s in ranked}


def test_pin_0_roots_the_search_in_the_trained_agent_as_its_presets_now_stand() -> None:
    """`pin=0` lifts investigator's pin: with 16 candidates the anchor is trained:deadly's choice (the reply's look)."""
    agent = make_agent("mcts:hard:pin=0:candidates=16", "investigator", seed=1)
    hard = make_agent("trained:deadly", "investigator", seed=1)
    for key in ("candidates", "samples", "horizon", "reply", "z", "margin", "through", "flat", "temperature"):
        assert getattr(agent.scorer, key) == getattr(hard, key), key
    assert (agent.scorer.reply, agent.scorer.horizon) == (1, 24)
    # the scorer picks what trained:deadly picks at a live decision (same dice generator, same policy)
    c = open_decision("investigator/skirmish", seed=7)
    agent.scorer.rng, hard.rng = np.random.default_rng(5), np.random.default_rng(5)
    agent.scorer.policy = hard.policy
    assert agent.scorer.choose(c)[0] == hard.choose(c)[0]
    # where no system pins the anchor, the option changes nothing
    for rid in ("kiai", "moonlit"):
        pinned, free = (make_agent(f"mcts:hard:pin={p}", rid, seed=1).scorer for p in (1, 0))
        assert vars(pinned).keys() == vars(free).keys()
        for key in ("candidates", "samples", "horizon", "reply", "playouts", "verify", "depth", "switch"):
            assert getattr(pinned, key) == getattr(free, key), (rid, key)


def test_the_budget_not_the_clock_decides() -> None:
    """The same seed makes the same choices whatever the machine's speed: no preset's cap binds here."""
    c = open_decision("investigator/duel", seed=8)
    runs = []
    for _ in range(2):
        # the UCB root plays every simulation of the budget (the paired root of the presets only the contenders')
        agent = make_agent("mcts:normal:paired=0:below=both", "investigator", seed=21)
        p = agent.propose(c)
        runs.append((p.action, p.reasons[0].split(" new in ")[0], [a.action for a in p.alternatives]))
        assert f"{PRESETS['normal']['simulations']} new" in p.reasons[0]
    assert runs[0] == runs[1]


def play_with_restores(spec: str, rid: str, restore_every: int, max_decisions: int | None = None) -> list[str]:
    """The event log of a duel where the search (first side) is rebuilt from its saved state every
    `restore_every` of its decisions (0: never), against the scripted agent."""
    c = Combat(f"{rid}/duel", seed=2)
    search = make_agent(spec, rid, seed=2)
    other = make_agent("scripted", rid, seed=3)
    decisions = 0
    while not c.over and (max_decisions is None or decisions < max_decisions):
        if c.decision.side == c.sides[0]:
            if restore_every and decisions % restore_every == 0:
                search = twin(search, spec, rid)
            decisions += 1
            c.act(search.propose(c).action)
        else:
            c.act(other.act(c))
    return [e.json_line() for e in c.log]


def test_a_restored_rooted_search_plays_the_same_game() -> None:
    assert play_with_restores(ROOTED, "investigator", 0) == play_with_restores(ROOTED, "investigator", 2)


@pytest.mark.parametrize("bad, words", [("mcts:prior=oracle", "prior must be one of scripted, trained, auto"),
                                        ("mcts:candidates=0", "candidates must be 1..64"),
                                        ("mcts:samples=5000", "samples must be 1..1000"),
                                        ("mcts:below=them", "below must be one of both, own, none"),
                                        ("mcts:paired=-1", "paired must be 0..100"),
                                        ("mcts:pin=2", "pin must be 0..1")])
def test_bad_root_parameters_are_refused(bad: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        make_agent(bad, "kiai", seed=1)


PAIRED = ROOTED + ":paired=1.5:below=own"


# positions where the trained agent rates no rival above its choice (moonlit 5/6) and some but not all (the rest)
@pytest.mark.parametrize("name, seed, steps", [("moonlit/duel", 5, 6), ("moonlit/duel", 5, 10),
                                               ("reincarnator/duel", 3, 6)])
def test_the_paired_root_plays_the_contenders_equally_and_keeps_the_choice_unless_both_looks_agree(
        name: str, seed: int, steps: int) -> None:
    c = open_decision(name, seed=seed, steps=steps)
    rid = c.system.info.id
    judge = twin(make_agent(PAIRED, rid, seed=3), PAIRED, rid)
    judge.scorer.policy = judge.policy
    choice, ranked, _ = judge.scorer.choose(c)
    chance = {s.action: s.chance for s in ranked}
    # the contenders: the choice and every rival the trained agent's own estimate rates above it
    contenders = [choice, *(s.action for s in ranked[1:] if s.chance > chance[choice])]
    snap = json.dumps(c.snapshot(), sort_keys=True)
    never = make_agent(PAIRED + ":paired=100", rid, seed=3)  # a gain of 100 standard errors: never
    p = never.propose(c)
    assert json.dumps(c.snapshot(), sort_keys=True) == snap, "the search changed the live combat"
    assert p.action == choice and p.reasons[-1] == "the trained agent agrees"
    if len(contenders) > 1:  # 12 simulations: as many rounds as if every candidate played, the contenders only
        rounds = 12 // len(ranked)
        visits = {a.action: int(a.reason.split()[0]) for a in p.alternatives}
        assert set(visits) == set(contenders[1:]) and set(visits.values()) == {rounds}, p
        assert f"over {rounds} of {rounds * len(contenders)} playouts" in p.reasons[0], p
    else:  # nothing could replace the choice, so nothing is played out: the trained agent's estimate stands
        assert "no playouts" in p.reasons[0] and not p.alternatives, p
        assert p.value == pytest.approx(chance[choice])
    # with the lowest bar the search may leave the choice, but only for one the trained agent rates above it
    for s in range(3):
        free = make_agent(PAIRED.replace("paired=1.5", "paired=0.01"), rid, seed=s).propose(c).action
        assert free in contenders


def test_with_every_rival_the_paired_root_plays_every_candidate_equally() -> None:
    """`rivals=all`: no first look filters the rivals, so each candidate gets the same rounds on the same dice."""
    c = open_decision("reincarnator/duel", seed=3, steps=6)
    spec = PAIRED + ":rivals=all:paired=100"  # never leaves the choice: the visits are what is checked
    judge = twin(make_agent(spec, "reincarnator", seed=3), spec, "reincarnator")
    judge.scorer.policy = judge.policy
    choice, ranked, _ = judge.scorer.choose(c)
    assert len(ranked) > 1
    p = make_agent(spec, "reincarnator", seed=3).propose(c)
    assert p.action == choice
    rounds = 12 // len(ranked)
    assert f"over {rounds} of {rounds * len(ranked)} playouts" in p.reasons[0], p
    assert {int(a.reason.split()[0]) for a in p.alternatives} == {rounds}
    with pytest.raises(ValueError, match="rivals must be one of above, all"):
        make_agent("mcts:rivals=some", "reincarnator", seed=1)


def test_the_paired_root_is_what_every_system_searches_with() -> None:
    for rid in ("moonlit", "reincarnator", "kiai", "investigator"):
        agent = make_agent("mcts:hard", rid, seed=1)
        assert (agent.paired, agent.below) == (1.5, "own")
    assert make_agent("mcts:hard", "kiai", seed=1).margin == 3.0  # kept: the kiai series were played with it


@pytest.mark.parametrize("name", ["kiai/skirmish", "investigator/duel"])
def test_the_preset_plays_as_the_paired_search_its_series_measured(name: str) -> None:
    """kiai's and investigator's `mcts:hard` is the spec their series were played with
    (`mcts:hard:paired=1.5:below=own`), not the UCB root: the same proposal, and one the UCB root
    (`paired=0:below=both`) does not make."""
    c = open_decision(name, seed=4)
    rid = c.system.info.id
    small = "simulations=24"  # the preset's root and below-root choices at a test's budget
    preset = make_agent(f"mcts:hard:{small}", rid, seed=5).propose(c)
    measured = make_agent(f"mcts:hard:{small}:paired=1.5:below=own", rid, seed=5).propose(c)
    ucb = make_agent(f"mcts:hard:{small}:paired=0:below=both", rid, seed=5).propose(c)

    def played(p):  # what was chosen and why, less the milliseconds it took
        return p.action, p.reasons[0].split(" in ")[0], p.reasons[1:], p.alternatives

    assert played(preset) == played(measured)
    assert played(preset)[1] != played(ucb)[1], "the preset searched with the UCB root"


def test_a_restored_paired_search_plays_the_same_game() -> None:
    # the first 12 of the search's decisions keep the test short
    assert play_with_restores(PAIRED, "moonlit", 0, 12) == play_with_restores(PAIRED, "moonlit", 3, 12)
