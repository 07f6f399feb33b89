"""An agent that plays a trained stable-baselines3 / sb3-contrib model through the env codecs."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from trpg_arena.agents.base import Agent
from trpg_arena.agents.proposal import Proposal
from trpg_arena.agents.spec import UnknownAgentError, register_agent
from trpg_arena.rules import Action, Combat


@register_agent("policy", positional="path")
class PolicyAgent(Agent):
    """Plays a saved MaskablePPO model (``policy:<path to model.zip>``); masks keep it legal."""

    def __init__(self, ruleset: str | None = None, rng: np.random.Generator | None = None, path: str = "",
                 deterministic: bool = True) -> None:
        from sb3_contrib import MaskablePPO

        super().__init__(ruleset, rng)
        if not path:
            raise UnknownAgentError("agent 'policy' needs a model file: policy:<path to model.zip>")
        if not Path(path).is_file():
            raise UnknownAgentError(f"agent 'policy': no model file at '{path}'")
        self.model = MaskablePPO.load(str(path), device="cpu")
        self.deterministic = deterministic

    def propose(self, combat: Combat) -> Proposal:
        """The model's choice."""
        return Proposal(self.act(combat), 0.0, ("the trained policy's choice",))

    def act(self, combat: Combat) -> Action:
        """The model's choice among the legal actions of the current decider."""
        from trpg_arena.envs.codec import Codec

        bf = combat.battlefield
        codec = Codec.of(combat.system, combat.encounter, bf.width or len(bf.graph), bf.height or 1)
        d = combat.decision
        assert d is not None
        side = next(v.side for v in combat.combatants if v.id == d.actor)
        obs = codec.observe(combat, side)
        mask = codec.mask(combat).astype(bool)
        action, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        chosen = codec.decode(int(np.asarray(action).item()))
        return chosen if combat.is_legal(chosen) else combat.legal_actions()[0]
