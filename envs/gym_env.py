"""The Gymnasium environment shared by every rule system (one registered id per system)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from trpg_arena.agents.canonical import CanonicalCodec
from trpg_arena.agents.codec import Codec
from trpg_arena.envs.arguments import RENDER_MODES, check_encounter_system, check_opponent, check_render_mode
from trpg_arena.envs.codec import keep_log, resolve_log_limit
from trpg_arena.envs.illegal import MAX_EPISODE_STEPS, MAX_ILLEGAL, IllegalActions, finite_number
from trpg_arena.rules import (
    Action,
    Combat,
    Dice,
    EncounterBase,
    InvalidActionError,
    ResetNeeded,
    get_ruleset,
    load_encounter,
)
from trpg_arena.table.render import render_ansi, render_rgb
from trpg_arena.table.session import Session

MAX_RESTARTS = 100  # combats a reset may start before one gives the learner a decision
LAYOUTS = ("canonical", "encounter")


def make_codec(system: Any, encounter: EncounterBase, layout: str) -> Any:
    """The codec of an env's ``layout``: the system's canonical one (default) or the encounter's own."""
    if layout == "canonical":
        return CanonicalCodec.of(system, encounter)
    if layout == "encounter":
        return Codec.of(system, encounter)
    raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")


def decode_legal(codec: Any, combat: Combat, action: Any) -> Action | None:
    """The legal action an index names at the current decision, or None when it is not legal there.

    Raises `InvalidActionError` for a value that is no index of the action space: a bool too, though Python
    counts it an int (``True`` would play index 1, which nobody chose), as floats and strings are.
    """
    if isinstance(action, bool | np.bool_):
        raise InvalidActionError(f"action must be an integer index, got {action!r}")
    if isinstance(codec, CanonicalCodec):
        return codec.decode(action, combat)
    act = codec.decode(action)
    return act if combat.is_legal(act) else None


class TrpgArenaEnv(gym.Env[np.ndarray, np.int64]):
    """One side of a tabletop-RPG combat as a single-agent, action-masked Gymnasium environment.

    ## Description
    A combat of one rule system (``ruleset``) on one encounter. The learner plays every decision of
    one side (its turns and, by default, its reactions: dodges, counters, opportunity attacks);
    every other decision is answered by the ``opponent`` agent. Each ``step`` is one decision of
    the learner.

    ## Action Space
    ``Discrete(n)`` with the same n for every encounter of the rule system: the system's canonical
    action layout (`trpg_arena.rules.core.action_layout`, table in ``docs/features/<id>.md``), verbs x
    target slots in the feature rows' order (the actor, its allies, its enemies) x options x
    destinations relative to the actor. An encounter beyond its limits is refused when the env is
    made. Only the actions of the current decision point are legal: ``env.action_masks()`` (the sb3-contrib
    convention) and ``info["action_mask"]`` give them exactly. What a masked index does is
    ``illegal_action`` (`trpg_arena.envs.illegal`, shared with the AEC env): ``"lose"`` (the default,
    as in PettingZoo's classic games) ends the episode at once with reward -1 and
    ``info["illegal_action"]``; ``"penalize"`` returns reward ``-illegal_penalty`` and changes nothing;
    ``"raise"`` (strict, for tests) raises `IllegalActionError` and changes nothing.

    ## Observation Space
    ``Box(-1, 1, (k,), float32)``, the same k for every encounter of the rule system: its named
    feature vector (`trpg_arena.rules.core.features`; ``env.unwrapped.feature_names`` names every
    entry, ``docs/features/<id>.md`` documents them) seen from the decider's side, so one model plays
    either side. ``layout="encounter"`` gives the older per-encounter layout instead
    (`trpg_arena.agents.codec`: its size and meaning change with the encounter).

    ## Rewards
    +1 when the learner's side wins, -1 when it loses, 0 for a draw, at the end. With
    ``shaping > 0`` every step also gets ``shaping * (damage dealt - damage taken)`` as fractions of
    the sides' total max HP.

    ## Starting State
    The encounter's setup (or its ``start`` section), with all randomness from the seed passed
    to ``reset``; opponent decisions before the learner's first decision are played (a combat
    that ends before it, e.g. an opponent fleeing at once, is replaced by a fresh one).

    ## Episode End
    Terminated when the combat ends (a side wins, or a draw at the round cap), or at an illegal
    action with ``illegal_action="lose"``. Truncated after ``max_episode_steps`` learner steps
    (default 5,000; a combat ends long before, every rule system has a round cap) and, with
    ``illegal_action="penalize"``, after ``max_illegal`` illegal actions in a row (default 100), so
    no policy can loop for ever. Through ``gymnasium.make`` the step limit is the registered spec's
    (``env.spec.max_episode_steps``, Gymnasium's ``TimeLimit``): ``make(id, max_episode_steps=N)``
    sets it and ``-1`` lifts it, as for any Gymnasium env; built directly, the env counts its own.

    ## Info
    Every ``reset`` and ``step`` gives ``action_mask`` (int8, the legal actions of the learner's next
    decision), ``decision`` (that decision's step name, e.g. ``"turn"`` or ``"dodge"``; None once the
    combat is over), ``actor`` (the id of the combatant deciding), ``result`` (the winning side,
    ``"draw"``, or None while the combat runs) and ``round``; a step on a masked action adds
    ``illegal_action: True``.

    ## Arguments
    ``ruleset`` (set by the registered id), ``encounter`` (path, built-in name such as
    ``"moonlit/skirmish"``, dict or loaded encounter; default ``"<ruleset>/skirmish"``), ``side``
    (default the first side; ``"both"`` draws the learner's side at each reset), ``opponent`` (agent
    spec such as ``"random"`` / ``"scripted"``, an agent object, or a league whose
    ``for_episode(rng)`` gives each episode's opponent, see `trpg_arena.experiments.league`),
    ``render_mode`` (``"ansi"`` or ``"rgb_array"``), ``illegal_action`` (``"lose"``, ``"penalize"``
    or ``"raise"``), ``illegal_penalty``, ``shaping``, ``log_limit`` (how many recent events the
    combat keeps in memory; ``"auto"``, the default, records none without a
    ``render_mode`` and keeps 64 with one, for the picture; a step that leaves more than twice the
    limit trims the log back, which keeps long training runs lean and fast; ``combat.decision_count``
    counts on either way; ``None`` keeps the whole log, e.g. to save a replay), ``layout``
    (``"canonical"``, the default, or ``"encounter"``), ``max_episode_steps``, ``max_illegal``. A wrong
    argument is an error when the env is made: an opponent spec is checked as the commands check one, an
    agent object must play this rule system, an action must be an integer (a float or a string is an
    `InvalidActionError`, never cut to one).

    ## Version History
    * v0: initial release. Codec version 2 (recorded in models' cards): the canonical layout became
      the default (version 1, the per-encounter layout, stays as ``layout="encounter"``), so one
      model fits every encounter of a system; episodes truncate after ``max_episode_steps`` steps
      or ``max_illegal`` illegal actions in a row.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(self, ruleset: str, encounter: Any = None, side: str | None = None, opponent: Any = "random",
                 render_mode: str | None = None, illegal_action: str = "lose", illegal_penalty: float = 0.1,
                 shaping: float = 0.0, log_limit: int | str | None = "auto", layout: str = "canonical",
                 max_episode_steps: int | None = MAX_EPISODE_STEPS, max_illegal: int | None = MAX_ILLEGAL) -> None:
        self.system = get_ruleset(ruleset)
        self.encounter: EncounterBase = load_encounter(encounter if encounter is not None else f"{ruleset}/skirmish")
        check_encounter_system(self.encounter, ruleset)
        sides = self.encounter.sides()
        self._learner_sides = sides if side == "both" else [side if side is not None else sides[0]]
        self.side = self._learner_sides[0]
        if self.side not in sides:
            raise ValueError(f"no side '{self.side}' in the encounter (sides: {', '.join(sides)}, or 'both')")
        self.illegal = IllegalActions(illegal_action, illegal_penalty, max_episode_steps, max_illegal)  # see illegal.py
        check_render_mode(render_mode)
        self.render_mode = render_mode
        if not finite_number(shaping):
            raise ValueError(f"shaping must be a finite number, got {shaping!r}")
        self.shaping = shaping
        self.log_limit = resolve_log_limit(log_limit, render_mode)
        self._opponent_spec = check_opponent(opponent, ruleset)
        self.opponent: Any = None
        self._lost_by_illegal = False  # the episode ended at an illegal action (illegal_action="lose")
        self.layout = layout
        self.codec: Any = make_codec(self.system, self.encounter, layout)
        self._truncated = False
        self.action_space = spaces.Discrete(self.codec.n_actions)
        self.observation_space = spaces.Box(-1.0, 1.0, (self.codec.obs_size,), np.float32)
        self.combat: Combat | None = None
        self._session: Session | None = None
        self._hp_cache: tuple[int, int] = (0, 0)
        self._max_hp: tuple[int, int] = (1, 1)
        self._mask: tuple[list[Any], Combat, np.ndarray] | None = None

    @property
    def feature_names(self) -> tuple[str, ...]:
        """Name of every observation entry (the canonical layout), in order."""
        names = getattr(self.codec, "feature_names", None)
        if names is None:
            raise AttributeError("feature_names: the per-encounter layout (layout='encounter') names no entries")
        return tuple(names)

    # --- helpers --------------------------------------------------------------------------------
    def _make_opponent(self) -> Any:
        from trpg_arena.agents import make_agent

        pick = getattr(self._opponent_spec, "for_episode", None)
        if pick is not None:  # a league (`experiments.league`): a new opponent every episode
            return pick(self.np_random)
        seed = int(self.np_random.integers(2**31))
        if isinstance(self._opponent_spec, str):
            return make_agent(self._opponent_spec, self.system.info.id, seed=seed)
        agent = self._opponent_spec
        if hasattr(agent, "rng"):
            agent.rng = np.random.default_rng(seed)
        return agent

    def _run_opponents(self) -> None:
        """Let the opponent answer every decision up to the learner's next one (the session loop, headless)."""
        me = self.side
        assert self._session is not None
        self._session.run(until=lambda d: d.side == me)

    def _hp_totals(self) -> tuple[int, int]:
        own = other = 0
        assert self.combat is not None  # called after reset
        for v in self.combat.combatants:
            if v.side == self.side:
                own += max(0, v.hp)
            else:
                other += max(0, v.hp)
        return own, other

    def _obs(self) -> np.ndarray:
        assert self.combat is not None
        return self.codec.observe(self.combat, self.side)

    def _info(self) -> dict[str, Any]:
        c = self.combat
        assert c is not None
        d = c.decision
        return {"action_mask": self._current_mask(), "decision": d.step if d else None,
                "actor": d.actor if d else None, "result": c.result, "round": c.round}

    # --- Gymnasium API ----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new combat; all randomness flows from ``self.np_random``."""
        super().reset(seed=seed)
        self._lost_by_illegal = False
        self.illegal.reset()
        self._truncated = False
        for _ in range(MAX_RESTARTS):
            if len(self._learner_sides) > 1:  # side="both": the learner plays a side drawn per episode
                self.side = self._learner_sides[int(self.np_random.integers(len(self._learner_sides)))]
            self.opponent = self._make_opponent()
            self.combat = Combat(self.encounter, dice=Dice(self.np_random), record=self.log_limit != 0)
            others = {side: self.opponent for side in self.combat.sides if side != self.side}
            self._session = Session.attach(self.combat, others)
            self._run_opponents()
            if not self.combat.over:
                break
            # the combat ended before the learner's first decision (an opponent fled or surrendered at
            # once): there is nothing to learn from it, so a fresh one starts from the same RNG stream
        else:
            raise RuntimeError(f"{MAX_RESTARTS} combats in a row ended before the learner's first decision")
        if self.shaping:
            self._hp_cache = self._hp_totals()
            totals = [0, 0]
            for v in self.combat.combatants:
                totals[0 if v.side == self.side else 1] += v.max_hp
            self._max_hp = (max(1, totals[0]), max(1, totals[1]))
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play one decision of the learner, then every opponent decision up to the learner's next one."""
        c = self.combat
        if c is None or c.over or self._lost_by_illegal or self._truncated:
            raise ResetNeeded("call reset() before step() (the episode has ended or never started)")
        act = decode_legal(self.codec, c, action)
        if act is None:
            d = c.decision
            verdict = self.illegal.illegal(lambda: f"action {int(action)} is not legal for {d.actor if d else '-'} "
                                           f"at {d.step if d else '-'} ({len(c.legal_view())} legal actions: see "
                                           "the mask)")
            self._lost_by_illegal, self._truncated = verdict.lost, verdict.truncated
            info = {**self._info(), "illegal_action": True}
            return self._obs(), verdict.reward, verdict.lost, verdict.truncated, info
        limit_reached = self.illegal.legal()
        c.act(act)
        self._run_opponents()
        keep_log(c, self.log_limit)
        reward = 0.0
        if self.shaping:
            own, other = self._hp_totals()
            dealt = (self._hp_cache[1] - other) / self._max_hp[1]
            taken = (self._hp_cache[0] - own) / self._max_hp[0]
            self._hp_cache = (own, other)
            reward += self.shaping * (dealt - taken)
        terminated = c.over
        if terminated:
            reward += 1.0 if c.result == self.side else (0.0 if c.result == "draw" else -1.0)
            report = getattr(self._opponent_spec, "episode_over", None)
            if report is not None:
                report(c.result == self.side)
        truncated = self._truncated = not terminated and limit_reached
        return self._obs(), float(reward), terminated, truncated, self._info()

    def _current_mask(self) -> np.ndarray:
        """A fresh int8 mask of the current decision.

        Built once per decision (`step`'s info and `action_masks` share it); callers get copies they may change.
        """
        c = self.combat
        assert c is not None
        if isinstance(self.codec, CanonicalCodec):  # cached per decision by the codec itself
            return self.codec.mask(c)
        legal = c.legal_view()
        cached = self._mask
        if cached is None or cached[0] is not legal or cached[1] is not c:
            cached = self._mask = (legal, c, self.codec.mask(c))
        return cached[2].copy()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the legal actions (sb3-contrib's MaskablePPO convention)."""
        if self.combat is None:
            raise ResetNeeded("call reset() first")
        return self._current_mask().astype(bool)

    def render(self) -> str | np.ndarray | None:
        """Text (``ansi``) or a picture (``rgb_array``) of the current state."""
        if self.combat is None or self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return render_ansi(self.combat)
        return render_rgb(self.combat)
