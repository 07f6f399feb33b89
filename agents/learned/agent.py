"""`trained`: one-ply look over sampled dice, scored by the system's learned value (TD-Gammon's recipe).

At each decision the agent takes the scripted agent's best few actions (its ranking is the cheap prior
that makes hundreds of legal actions affordable) and plays each of them on copies of the live combat
with dice of its own (the live dice are never read or advanced): the scripted policy continues the
mover's turn (and, with `through`, the other side's reactions to it, so the action's dice are rolled)
until another side takes a turn, the mover's turn ends or the fight does, and the learned value scores
where that leads. Every candidate is played on the same dice samples, so their differences are
measured pairwise, with little noise.

The value is not trusted blindly: an argmax over a dozen noisy estimates picks exactly the positions
where the value is wrong. The agent keeps the scripted choice unless another action beats it by
`margin` plus `z` standard errors of the paired difference, and a deviation the dice do not spread at
all (the value's judgement alone) by `flat`. The presets are a strength index: `hard` is the agent at
full strength (a bare `trained` is `trained:hard`), `deadly` looks wider, and `normal` and `easy`
sample the final choice by a softmax `temperature` over the candidates' estimates (a blunder `guard`
keeps the sample near the choice), so each is weaker than the one above.

Under a deadline (a server's time limit, `agents.deadline`) a look not done in time is given up and the
agent answers the scripted choice, as a search cut short answers its best so far; outside one nothing changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from trpg_arena.agents import deadline
from trpg_arena.agents.base import Agent, rng_state, set_rng_state
from trpg_arena.agents.learned.model import ValueModel, load_model
from trpg_arena.agents.learned.value import win_chances
from trpg_arena.agents.proposal import Alternative, Proposal
from trpg_arena.agents.search.priors import prior_order
from trpg_arena.agents.spec import Limit, make_agent, register_agent
from trpg_arena.rules import Action, Combat, DecisionKind, Dice

# margin 0.01: with z = 2 (8 samples) the agent left the scripted choice at 1 decision in 67 of kiai duels
# (48 % against scripted over 100 games); z = 0.5 left it at 16 in 63 (58 % on the same seeds, 52 % over
# 200 fresh ones), but chased noise once the look-ahead went through the roll (below).
# through = 1: on moonlit's skirmish the look-ahead through the target's dodge took the agent from 34.8 %
# of decided games against scripted to 71.0 % (docs/strength.md). samples 16 and z = 1.5 (instead of 8 and
# 0.5): on kiai duels 45.0 % -> 55.0 % over 400 games, investigator duels 57.0 -> 61.0 %, moonlit skirmishes
# unchanged; z = 0.5 let a noisy estimate among five candidates pass the bar too often.
# The presets are a strength index (re-cut on 6 December): `hard` is the learned NPC at full strength, the look
# every bar was measured with (until then called `normal`: its values must not move, tests/agents/
# test_trained_strength_index.py pins them); `deadly` looks wider (until then `hard`); `normal` and `easy` are
# handicaps of `hard`, a softmax `temperature` over the candidates' win chances with a blunder `guard`, as ELF
# OpenGo's and Stockfish's skill levels, so each is weaker than the one above by construction. More candidates
# and samples alone had bought no measurable step (docs/strength.md, "The ladder of the presets").
# `normal`'s temperature 0.05 and guard 0.15: `hard` won 181 of 300 kiai duels against it (60.3 %; `trpg-arena
# evaluate kiai/duel --agents trained:hard,trained:hard:temperature=0.05:guard=0.15`, seeds 3860000 and 3867000),
# about the 70 Elo a level below full strength should be; at 0.1 and 0.2 it won 136 of 200 (68.0 %, seed 3866000).
# `easy` samples almost evenly among the script's best four within 0.5 of the choice (temperature 1, guard 0.5):
# the `easy` before (0.1 and 0.2) was as strong as this `normal` (it won 95 of 200 kiai duels against it, seed
# 3868400, and 95 of 200 investigator ones against investigator's, seed 3868000); this one lost 118 to 82 on kiai
# (seed 3874800, 59.0 %, about 63 Elo) and 69 to 131 on investigator (seed 3874000, 65.5 %, about 111 Elo).
DEFAULT_PRESET = "hard"  # a bare `trained`: the learned NPC at full strength, not a handicap of it
LOOK: dict[str, Any] = {"candidates": 5, "samples": 16, "z": 1.5, "margin": 0.01, "through": 1}
PRESETS: dict[str, dict[str, Any]] = {
    "easy": {"candidates": 4, "samples": 4, "temperature": 1.0, "guard": 0.5, "through": 1},
    "normal": {**LOOK, "temperature": 0.05, "guard": 0.15},
    "hard": dict(LOOK),
    "deadly": {**LOOK, "candidates": 8, "samples": 32},
}

HELPS: dict[str, str] = {
    "candidates": "actions looked at per decision: the scripted agent's best few",
    "samples": "dice samples per candidate (the same samples for every candidate)",
    "horizon": "scripted decisions of the mover's turn played after the candidate at most",
    "reply": "1: play the other side's scripted reply too, up to our side's next decision, before scoring",
    "through": "1: play the other side's reactions (dodge, cover) by the script: the action's dice roll before scoring",
    "flat": "a deviation whose gain has no dice spread must win by this much (the value's judgement alone)",
    "playouts": "a deviation without dice spread is played out this many times (paired), kept only if it gains there",
    "verify": "1: every deviation is checked by the play-outs, not only those without dice spread",
    "wide": "the value's best this many departures are played out even below the margin; the play-outs pick",
    "pz": "a played-out deviation must gain `margin` plus this many standard errors of its paired play-outs",
    "fresh": "1: the play-outs roll dice of their own, not the look-ahead's samples that nominated the deviation",
    "foe": "the other side in the play-outs is this system's `trained:hard` look with this many dice samples "
           "and no play-outs of its own (0: the script)",
    "answer": "1: with `foe`, the other side's decisions in the look-ahead (its reactions, with `reply` its reply) "
              "are the foe's too",
    "depth": "decisions a play-out runs at most before the value scores it (0: to the end of the fight)",
    "switch": "a deviation to another verb than the scripted one, in the mover's own turn, needs this much more gain",
    "idle": "a deviation that ends the mover's turn where the scripted choice still acts needs this much more gain",
    "doubt": "dropout masks of the value (0: off); a deviation must be a gain under every one of them",
    "margin": "leave the scripted choice only for a gain of this much win chance ...",
    "z": "... plus this many standard errors of the paired difference",
    "temperature": "final choice sampled by exp(win chance / temperature); 0 takes the best",
    "guard": "never sample an action whose win chance is this much below the choice",
    "share": "a side of n combatants samples (temperature, guard) at one decision in n**share, the others take "
             "the best: a skirmish's many decisions then give away about what a duel's few do (0: every decision)",
    "model": "value model file (default: the one shipped for the rule system)",
}


# What each parameter allows: a spec outside these is refused with this list before any agent is built.
LIMITS: dict[str, Limit] = {
    "candidates": Limit(1, 64),
    "samples": Limit(1, 1000),
    "horizon": Limit(0, 1000),
    "reply": Limit(0, 1),
    "through": Limit(0, 1),
    "flat": Limit(0, 1),
    "playouts": Limit(0, 256),
    "verify": Limit(0, 1),
    "wide": Limit(0, 64),
    "pz": Limit(0, 100),
    "fresh": Limit(0, 1),
    "foe": Limit(0, 64),
    "answer": Limit(0, 1),
    "depth": Limit(0, 100000),
    "switch": Limit(0, 1),
    "idle": Limit(0, 1),
    "doubt": Limit(0, 64),
    "margin": Limit(0, 1),
    "z": Limit(0, 100),
    "temperature": Limit(0, 100),
    "guard": Limit(0, 1),
    "share": Limit(0, 4),
}


def _pct(p: float) -> str:
    return f"{round(100 * max(0.0, min(1.0, p)))} %"


# below this standard error (0.2 points of win chance) a paired difference is taken to have no dice spread
_NO_SPREAD = 0.002
# the verb that ends the mover's turn in every rule system that has one (investigator, kiai, reincarnator)
_END_TURN = "end_turn"
# a play-out to the end stops here at most (the round cap ends fights long before) and the value scores where it stands
_PLAYOUT_CAP = 5000


class _OutOfTime(Exception):
    """The deadline of whoever asked (a server's time limit) passed in the middle of a look: it is given up."""


def _in_time() -> None:
    """Raise `_OutOfTime` once the deadline of whoever asked has passed (outside any deadline: never)."""
    if deadline.expired():
        raise _OutOfTime


@dataclass(frozen=True)
class Scored:
    """A candidate with its mean win chance and the paired difference to the scripted choice."""

    action: Action
    chance: float
    gain: float  # mean paired difference to the scripted choice
    se: float  # its standard error


@register_agent("trained", presets=PRESETS, helps=HELPS, limits=LIMITS, default_preset=DEFAULT_PRESET)
class TrainedAgent(Agent):
    """The learned value over sampled dice, one ply deep, checked against the scripted choice."""

    @classmethod
    def check_params(cls, ruleset: str, params: dict[str, Any]) -> None:
        """A ``model`` file must be a value model of this rule system's feature layout."""
        if params.get("model"):
            load_model(ruleset, params["model"])

    def __init__(self, ruleset: str | None = None, rng: np.random.Generator | None = None,
                 seed: int | None = None, candidates: int = 5, samples: int = 16, horizon: int = 12,
                 margin: float = 0.01, z: float = 1.5, temperature: float = 0.0, guard: float = 0.2,
                 reply: int = 0, through: int = 1, flat: float = 0.0, switch: float = 0.0, doubt: int = 0,
                 playouts: int = 0, verify: int = 0, depth: int = 0, wide: int = 0, pz: float = 0.0,
                 fresh: int = 0, idle: float = 0.0, foe: int = 0, answer: int = 0, share: float = 0.0,
                 model: str = "") -> None:
        super().__init__(ruleset, rng if rng is not None else np.random.default_rng(seed))
        if candidates < 1 or samples < 1 or horizon < 0:
            raise ValueError(f"trained: candidates and samples must be >= 1 and horizon >= 0, got {candidates}, "
                             f"{samples}, {horizon}")
        if ruleset is None:
            raise ValueError("trained: the agent plays one rule system (its value model's)")
        self.candidates, self.samples, self.horizon = candidates, samples, horizon
        self.margin, self.z, self.temperature, self.guard = margin, z, temperature, guard
        self.reply, self.through, self.flat, self.switch, self.doubt = reply, through, flat, switch, doubt
        self.playouts, self.verify, self.depth, self.wide, self.pz = playouts, verify, depth, wide, pz
        self.fresh, self.idle, self.foe, self.answer, self.share = fresh, idle, foe, answer, share
        self.model: ValueModel = load_model(ruleset, model or None)
        # the prior and the in-between decisions: the scripted policy, seeded from our RNG, saved with us
        self.policy = make_agent("scripted", ruleset, seed=int(self.rng.integers(2**31)))
        # the other side of the play-outs: the script, or with `foe` the ladder's neighbour as this system plays
        # it (its own check off: play-outs inside play-outs would cost seconds a decision); seeded after the
        # policy, so an agent without `foe` draws the same numbers as before it existed
        self.rival: Agent = self.policy
        if foe > 0:
            self.rival = make_agent(f"trained:hard:samples={foe}:playouts=0:verify=0:wide=0", ruleset,
                                    seed=int(self.rng.integers(2**31)))

    # --- choosing -----------------------------------------------------------------------------
    def _decide(self, combat: Combat) -> tuple[Action, list[Scored], str]:
        legal = combat.legal_view()
        if len(legal) == 1:
            return legal[0], [], "the only legal action"
        order = prior_order(self.policy, combat)[: self.candidates]
        if len(order) == 1:
            return order[0], [], "the only candidate"
        try:
            return self._weigh(combat, order)
        except _OutOfTime:  # as a search cut by the deadline answers its best so far: nothing beat the script yet
            return order[0], [], "the scripted choice: the time to think ran out before the look-ahead was done"

    def _weigh(self, combat: Combat, order: list[Action]) -> tuple[Action, list[Scored], str]:
        """The choice among the scripted agent's best few (`order`, its choice first); `_OutOfTime` if cut."""
        d = combat.decision
        assert d is not None and d.side is not None  # a decision is open: the agent was asked
        side = d.side
        seeds = [int(s) for s in self.rng.integers(2**63, size=self.samples)]
        masks = None
        if self.doubt > 0:  # the plain network first (a mask of ones), then the dropout masks
            masks = np.vstack([np.ones((1, self.model.hidden_units), np.float32),
                               self.model.dropout_masks(self.doubt, self.rng)])
        # with `answer`, every look starts the foe from one state, so the candidates stay paired on its choices too
        answering = self.rival.get_state() if self.answer and self.rival is not self.policy else None
        try:
            every = np.stack([self._lookahead(combat, a, side, seeds, masks, answering)
                              for a in order])  # candidates x masks x samples
        finally:  # a look cut by the deadline leaves the foe as it found it too
            if answering is not None:
                self.rival.set_state(answering)
        if answering is not None:
            self.rival.rng.integers(2)  # the next decision's looks draw other numbers for the foe
        values = every[:, 0, :]
        diffs = values - values[0]
        chance = values.mean(axis=1)
        gain = diffs.mean(axis=1)
        se = diffs.std(axis=1, ddof=1) / math.sqrt(self.samples) if self.samples > 1 else np.ones(len(order))
        scored = [Scored(a, float(chance[i]), float(gain[i]), float(se[i])) for i, a in enumerate(order)]
        # a gain under every dropout mask: the network's own correction is sure of it, not only its plain output
        sure = ((every[:, 1:, :] - every[0, 1:, :]).mean(axis=2) > 0).all(axis=1)
        reaction = d.kind is DecisionKind.REACTION
        if self.wide > 0 and self.playouts > 0:
            trusted = self._widened(combat, [s for i, s in enumerate(scored) if i > 0 and sure[i]], order[0],
                                    side, seeds)
        else:
            passing = [s for i, s in enumerate(scored)
                       if i > 0 and sure[i] and s.gain > self._bar(s, order[0], reaction)]
            # the largest gain that also survives its play-outs: checked best first and only until one survives,
            # the same choice as checking every one (play-outs are the costly part of a decision)
            first = next((s for s in sorted(passing, key=lambda s: -s.gain)
                          if s.se >= _NO_SPREAD and not self.verify
                          or self._plays_out_better(combat, s.action, order[0], side, seeds)), None)
            trusted = [first] if first is not None else []
        pick = max(trusted, key=lambda s: s.gain) if trusted else scored[0]
        why = ("played out to the end, it beats the scripted choice by more than the margin"
               if trusted and self.wide > 0 and self.playouts > 0
               else "it beats the scripted choice by more than the margin" if trusted
               else "the scripted choice: no other candidate beats it by more than the margin")
        if self.temperature > 0 and self._handicapped(combat, side):
            logits = (chance - chance.max()) / self.temperature
            weights = np.exp(logits)
            sampled = scored[int(self.rng.choice(len(scored), p=weights / weights.sum()))]
            if sampled is not pick:
                if sampled.chance >= pick.chance - self.guard:
                    pick, why = sampled, f"sampled at temperature {self.temperature:g}"
                else:
                    why += "; the guard refused a sampled blunder"
        ranked = [pick] + sorted((s for s in scored if s is not pick), key=lambda s: -s.chance)
        return pick.action, ranked, why

    def _handicapped(self, combat: Combat, side: str) -> bool:
        """Whether this decision's choice is sampled: every one, or with `share` one in n**share for a side of n.

        n counts the side's combatants as listed, the fallen too, so the odds stay those of the whole fight.
        A lone fighter (or `share` 0) draws no number: its games are the same with `share` as without.
        """
        odds = sum(1 for c in combat.combatants if c.side == side) ** -self.share if self.share > 0 else 1.0
        return odds >= 1 or bool(self.rng.random() < odds)

    def _bar(self, s: Scored, scripted: Action, reaction: bool = False) -> float:
        """The gain a deviation must show: the margin plus z standard errors, or at least `flat` without spread.

        Where every dice sample gives the same difference, only the value's judgement (and its bias) speaks.
        A deviation to another verb in the mover's own turn (a stance instead of a strike) adds `switch`: the
        look-ahead stops where the two plans have not yet paid off, so the value's bias between them weighs
        more than between two forms of the same action (another target, another technique level), which
        reach like positions. A reaction (a counter instead of a dodge) is not barred so: the attack it
        answers is rolled inside the look-ahead, so the value scores what each answer led to. Ending the turn
        where the scripted choice still acts (an attack, a move) adds `idle`: there the look-ahead stops at
        once, against a turn played on, and the value's bias between the two passed for a gain that lost
        when played out.
        """
        bar = self.margin + self.z * s.se
        if s.action.verb != scripted.verb and not reaction:
            bar += self.switch
            if s.action.verb == _END_TURN:
                bar += self.idle
        return max(bar, self.flat) if s.se < _NO_SPREAD else bar

    def _plays_out_better(self, combat: Combat, action: Action, scripted: Action, side: str,
                          seeds: list[int]) -> bool:
        """With `playouts`, whether `action` beats the scripted choice when both are played out to the end.

        A deviation without dice spread is the value's judgement alone, and that judgement can be its bias
        between two points of the turn where the look-ahead stops (reincarnator: 'end turn' for 'reload'
        lost when played out, 'drop the sword' for a step gained +0.16 a decision on the duel). So the two
        are played to the end of the fight by the scripted policy on both sides, on the same dice and from
        the same policy state (paired), and the departure is kept only if its mean result (a win 1, a draw
        0.5) is higher by more than `margin`. Without `playouts` every such departure passes here.
        """
        if self.playouts <= 0:
            return True
        return self._passes(self._playout_gains(combat, [action], scripted, side, seeds)[0])

    def _passes(self, gains: np.ndarray) -> bool:
        """Whether paired play-out gains clear the bar: `margin` plus `pz` standard errors of their mean."""
        se = float(gains.std(ddof=1)) / math.sqrt(len(gains)) if len(gains) > 1 else 0.0
        return float(gains.mean()) > self.margin + self.pz * se

    def _widened(self, combat: Combat, departures: list[Scored], scripted: Action, side: str,
                 seeds: list[int]) -> list[Scored]:
        """With `wide`, the departure the play-outs prefer among the value's best few, or none.

        The value only nominates: its `wide` best departures that it rates above the scripted choice, at any
        gain (a bar on the value's gain keeps exactly the departures where its bias is largest, and loses
        small real gains). Each is played out against the scripted choice on the same dice, and the one
        with the highest mean result is taken if it clears the play-out bar (`_passes`). The play-outs are
        an exact model of a scripted opponent, so what they prefer is what gains against it.
        """
        nominated = sorted((s for s in departures if s.gain > 0), key=lambda s: -s.gain)[: self.wide]
        if not nominated:
            return []
        gains = self._playout_gains(combat, [s.action for s in nominated], scripted, side, seeds)
        passing = [(float(g.mean()), i) for i, g in enumerate(gains) if self._passes(g)]
        return [nominated[max(passing)[1]]] if passing else []

    def _playout_gains(self, combat: Combat, actions: list[Action], scripted: Action, side: str,
                       seeds: list[int]) -> list[np.ndarray]:
        """Per action, its `playouts` paired results minus the scripted choice's (same dice, same policy state).

        With `fresh`, the play-outs roll dice of their own: the departure was nominated because it looked
        better on the look-ahead's samples, and play-outs that start from the same rolls inherit that luck
        (the first attack's roll is the same one), so the check would partly confirm its own selection.
        """
        if self.fresh:
            seeds = [int(s) for s in self.rng.integers(2**63, size=self.playouts)]
        start = self._playout_state()
        gains: list[list[float]] = [[] for _ in actions]
        try:
            for k in range(self.playouts):
                seed = seeds[k % len(seeds)] + k // len(seeds)
                self._set_playout_state(start)
                base = self._result(combat, scripted, side, seed)
                for i, action in enumerate(actions):
                    self._set_playout_state(start)
                    gains[i].append(self._result(combat, action, side, seed) - base)
        finally:  # the check leaves the agent as it found it (cut or not): later choices do not depend on it
            self._set_playout_state(start)
        return [np.asarray(g) for g in gains]

    def _playout_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return self.policy.get_state(), self.rival.get_state()

    def _set_playout_state(self, state: tuple[dict[str, Any], dict[str, Any]]) -> None:
        self.policy.set_state(state[0])
        self.rival.set_state(state[1])

    def _result(self, combat: Combat, action: Action, side: str, seed: int) -> float:
        """`side`'s result after `action` played on, or the value's estimate after `depth` decisions.

        `side` is played by the script, the other side by `rival` (the script too, unless `foe` is set).
        """
        sim = combat.clone(dice=Dice(seed))
        sim.recording = False
        sim.act(action)
        for _ in range(self.depth or _PLAYOUT_CAP):
            d = sim.decision
            if sim.over or d is None:
                break
            _in_time()
            sim.act((self.policy if d.side == side else self.rival).act(sim))
        return float(win_chances(self.model, [sim], side)[0])

    def _lookahead(self, combat: Combat, action: Action, side: str, seeds: list[int],
                   masks: np.ndarray | None = None, answering: dict[str, Any] | None = None) -> np.ndarray:
        """`side`'s win chance after `action` on each dice sample, the mover's turn played out by the script.

        With `through`, the other side's reactions to the mover (a dodge, a cover) are played by the script
        and the look-ahead goes on: an attack's own dice are rolled after the target's answer, and without
        this every sample of an attack would stop at the same open reaction, so its paired difference to
        another candidate would have no spread and the value's bias would pass for a sure gain. With
        `reply`, the other side's decisions that follow are played by the script too, up to our side's
        next decision: the value then scores the position after the reply instead of predicting it. With
        `answering` (a state of the foe, `answer`), the foe, not the script, makes those decisions of the other
        side, from that state on every sample: a departure that only pays against the script's answer is not
        rated as a gain.
        """
        leaves = []
        d = combat.decision
        assert d is not None
        actor = d.actor
        for seed in seeds:
            _in_time()
            sim = combat.clone(dice=Dice(seed))
            sim.recording = False
            sim.act(action)
            if answering is not None:
                self.rival.set_state(answering)
            replied = False
            for _ in range(self.horizon):
                d = sim.decision
                if d is None:
                    break
                _in_time()
                if d.side == side:
                    if replied or d.actor != actor:
                        break
                elif self.through and not replied and d.kind is DecisionKind.REACTION:
                    pass  # the other side answers our action: play it, so the action's own dice are rolled
                elif not self.reply:
                    break
                else:
                    replied = True
                theirs = answering is not None and d.side != side
                sim.act((self.rival if theirs else self.policy).act(sim))
            leaves.append(sim)
        if masks is None:
            return win_chances(self.model, leaves, side)[None, :]
        return win_chances(self.model, leaves, side, masks)

    def choose(self, combat: Combat) -> tuple[Action, list[Scored], str]:
        """The choice, every candidate scored (the choice first, then by win chance), and why.

        What a search on the learned value takes as its root's candidates and their order (`mcts`).
        """
        return self._decide(combat)

    def act(self, combat: Combat) -> Action:
        """The chosen action (no sentences built)."""
        return self._decide(combat)[0]

    def propose(self, combat: Combat) -> Proposal:
        """The choice with its estimated win chance, why, and the runners-up with theirs."""
        action, ranked, why = self._decide(combat)
        describe = combat.system.describe
        if not ranked:
            return Proposal(action, 0.5, (why,))
        best = ranked[0]
        reasons = [f"{describe(combat, action)}: {_pct(best.chance)} estimated to win (the {self.ruleset} value model "
                   f"at the end of the turn, {self.samples} dice samples)", why[:1].upper() + why[1:]]
        if len(ranked) > 1:
            nxt = ranked[1]
            reasons.append(f"next best: {describe(combat, nxt.action)} ({_pct(nxt.chance)})")
        alternatives = tuple(Alternative(s.action, s.chance, f"{_pct(s.chance)} estimated to win")
                             for s in ranked[1:4])
        return Proposal(action, best.chance, tuple(reasons), alternatives)

    # --- saved state --------------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        """The RNG, the scripted policy's state and, with `foe`, the play-outs' other side's."""
        state = {"rng": rng_state(self.rng), "policy": self.policy.get_state()}
        if self.rival is not self.policy:
            state["rival"] = self.rival.get_state()
        return state

    def set_state(self, state: dict[str, Any]) -> None:
        """Continue from `get_state`'s value."""
        set_rng_state(self.rng, state["rng"])
        self.policy.set_state(state["policy"])
        if "rival" in state:
            self.rival.set_state(state["rival"])
