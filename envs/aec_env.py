"""The PettingZoo AEC environment shared by every rule system: agents are the combatants."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from trpg_arena.envs.arguments import RENDER_MODES, check_encounter_system, check_render_mode
from trpg_arena.envs.codec import keep_log, resolve_log_limit
from trpg_arena.envs.gym_env import decode_legal, make_codec
from trpg_arena.envs.illegal import MAX_EPISODE_STEPS, MAX_ILLEGAL, IllegalActions
from trpg_arena.rules import Combat, Dice, EncounterBase, ResetNeeded, get_ruleset, load_encounter
from trpg_arena.table.render import render_ansi, render_rgb


def _sides(encounter: EncounterBase, ids: list[str]) -> dict[str, str]:
    """The side of every possible agent: the roster's own, a summon's (``owner.template``) its summoner's."""
    side = {c.id: c.side for c in encounter.combatants}
    return {cid: side.get(cid, side.get(cid.split(".")[0], encounter.sides()[0])) for cid in ids}

class TrpgArenaAEC(AECEnv):
    """Every combatant of an encounter as a PettingZoo agent; turn order comes from the engine's decisions.

    Agents are all combatant ids that can ever appear (`possible_ids`), present from the start so
    that summons and arrivals keep a fixed slot. ``agent_selection`` is always the combatant whose
    decision is open. Observations are ``{"observation": Box, "action_mask": int8 vector}``
    (layouts as in the Gymnasium env: by default the system's canonical layout, the same spaces for
    every encounter, each agent seeing the combat from its own side; ``layout="encounter"`` for the
    per-encounter one; the mask is all zeros for agents not deciding). Rewards are
    given at the end: +1 to every combatant of the winning side, -1 to the others, 0 for a draw.
    An illegal action, by default (``illegal_action="lose"``, PettingZoo's classic convention),
    ends the game for every agent with -1 for the one who chose it and 0 for the others; with
    ``"penalize"`` the acting agent gets ``-illegal_penalty`` and must choose again; ``"raise"``
    (strict, for tests) raises `IllegalActionError` and changes nothing. ``log_limit`` as in the Gymnasium env
    (recent events kept in memory; "auto" records none headless and 64 when rendering; None keeps all).
    The illegal-action policy and the step limits are the Gymnasium env's (`trpg_arena.envs.illegal`).
    Every agent is truncated after ``max_episode_steps`` steps (default 5,000) and, with
    ``"penalize"``, after ``max_illegal`` illegal actions in a row (default 100).
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "trpg_arena_aec_v0", "is_parallelizable": False,
                "render_fps": 2}

    def __init__(self, ruleset: str, encounter: Any = None, render_mode: str | None = None,
                 illegal_action: str = "lose", illegal_penalty: float = 0.1,
                 log_limit: int | str | None = "auto", layout: str = "canonical",
                 max_episode_steps: int | None = MAX_EPISODE_STEPS, max_illegal: int | None = MAX_ILLEGAL) -> None:
        super().__init__()
        self.system = get_ruleset(ruleset)
        self.encounter: EncounterBase = load_encounter(encounter if encounter is not None else f"{ruleset}/skirmish")
        check_encounter_system(self.encounter, ruleset)
        check_render_mode(render_mode)
        self.render_mode = render_mode
        self.illegal = IllegalActions(illegal_action, illegal_penalty, max_episode_steps, max_illegal)  # see illegal.py
        self.log_limit = resolve_log_limit(log_limit, render_mode)
        self.codec: Any = make_codec(self.system, self.encounter, layout)
        self.layout = layout
        self.possible_agents = list(self.system.possible_ids(self.encounter)[: self.system.max_slots(self.encounter)])
        self._side = _sides(self.encounter, self.possible_agents)
        obs_space = spaces.Dict({
            "observation": spaces.Box(-1.0, 1.0, (self.codec.obs_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.codec.n_actions,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.codec.n_actions) for a in self.possible_agents}
        self.combat: Combat | None = None
        self.np_random, _ = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space:
        """Observation space of an agent."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """Action space of an agent."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new combat seeded from `seed`."""
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.combat = Combat(self.encounter, dice=Dice(self.np_random), record=self.log_limit != 0)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._rewarded = False
        self.illegal.reset()
        self._sync()

    def _sync(self) -> None:
        c = self.combat
        assert c is not None
        if c.over:
            for a in self.agents:
                self.terminations[a] = True
                r = 0.0 if c.result == "draw" else (1.0 if self._side[a] == c.result else -1.0)
                self.rewards[a] = r
            self.agent_selection = self.agents[0] if self.agents else self.possible_agents[0]
            self._accumulate_rewards()
            self._rewarded = True
        else:
            assert c.decision is not None
            self.agent_selection = c.decision.actor

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Observation of `agent` (from its side's point of view) and its action mask."""
        c = self.combat
        if c is None:
            raise ResetNeeded("call reset() first")
        mask = self.codec.mask(c) if (c.decision is not None and c.decision.actor == agent
                                      and not self.truncations.get(agent, False)) else \
            np.zeros(self.codec.n_actions, dtype=np.int8)
        return {"observation": self.codec.observe(c, self._side[agent]), "action_mask": mask}

    def step(self, action: Any) -> None:
        """Apply the selected agent's action (None for an agent that is done)."""
        c = self.combat
        if c is None:
            raise ResetNeeded("call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if self._rewarded:  # rewards are only ever non-zero after a penalty or at the end
            self._clear_rewards()
            self._rewarded = False
        self._cumulative_rewards[agent] = 0.0
        act = decode_legal(self.codec, c, action)
        if act is None:
            verdict = self.illegal.illegal(lambda: f"action {action} is not legal for {agent} "
                                           f"({len(c.legal_view())} legal actions: see the mask)")
            if verdict.lost:  # the game ends for every agent: -1 for the one who chose it, 0 for the others
                self.rewards = {a: 0.0 for a in self.agents}
                self.terminations = {a: True for a in self.agents}
                self.infos[agent] = {**self.infos.get(agent, {}), "illegal_action": True}
            self.rewards[agent] = verdict.reward
            if verdict.truncated:
                self._truncate()
            self._accumulate_rewards()
            self._rewarded = True
            return
        limit_reached = self.illegal.legal()
        c.act(act)
        keep_log(c, self.log_limit)
        self._sync()
        if not c.over and limit_reached:
            self._truncate()

    def _truncate(self) -> None:
        """End the game for every agent without a result (a step limit was reached)."""
        self.truncations = {a: True for a in self.agents}

    def render(self) -> str | np.ndarray | None:
        """Text or picture of the current state."""
        if self.combat is None or self.render_mode is None:
            return None
        return render_ansi(self.combat) if self.render_mode == "ansi" else render_rgb(self.combat)

    def close(self) -> None:
        """Nothing to release."""


def aec_env(ruleset: str, encounter: Any = None, **kwargs: Any) -> TrpgArenaAEC:
    """The PettingZoo AEC env of a rule system: ``aec_env("moonlit", encounter="moonlit/skirmish")``."""
    return TrpgArenaAEC(ruleset, encounter=encounter, **kwargs)
