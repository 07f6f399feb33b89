"""An agent that plays a trained stable-baselines3 / sb3-contrib model through the env codecs."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from trpg_arena.rules import Action, Combat


class PolicyAgent:
    """Plays a saved MaskablePPO model (``make_agent("policy:<path>", ruleset)``); masks keep it legal."""

    def __init__(self, path: str | Path, seed: int | None = None, deterministic: bool = True) -> None:
        from sb3_contrib import MaskablePPO

        self.model = MaskablePPO.load(str(path), device="cpu")
        self.deterministic = deterministic

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
