"""`ppo`: a policy network per rule system, run in numpy, that plays any encounter of its system from either side.

The network reads the system's canonical observation (the named feature vector seen from the deciding
side, `trpg_arena.rules.core.features`) and scores every index of the system's canonical action layout
(`trpg_arena.rules.core.action_layout`); the legal actions of the decision are the only ones it may
choose (the mask), so it is legal by construction. The weights ship in ``models/ppo-<ruleset>.npz``
with a model card ``models/ppo-<ruleset>.md``; `trpg-arena train SYSTEM` rebuilds them (behaviour
cloning of the scripted agent, then MaskablePPO; torch under the ``train`` extra). Playing needs numpy alone.

A model refuses, with one line, what it cannot play: another rule system, a layout other than the one it
was trained on (the fingerprints differ), an encounter or a decision beyond the layout's limits.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from trpg_arena.agents.base import Agent, rng_state, set_rng_state
from trpg_arena.agents.learned.npz import UNREADABLE, sb3_model, why
from trpg_arena.agents.proposal import Alternative, Proposal
from trpg_arena.agents.spec import Limit, register_agent
from trpg_arena.rules import Action, Combat, TrpgArenaError

FORMAT = "trpg-arena-ppo/1"
MODELS = Path(__file__).parent / "models"


class PolicyModelError(TrpgArenaError, ValueError):
    """A policy model that is missing, broken, or cannot play the combat it is asked to."""


@dataclass(frozen=True)
class PolicyNet:
    """An MLP from the canonical observation to one logit per canonical action (tanh between layers)."""

    ruleset: str
    fingerprint: str  # the canonical layout's (features and actions) the model was trained on
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]  # (W, b) pairs, float32 at play time
    meta: dict[str, Any]

    @property
    def n_actions(self) -> int:
        """Size of the action layout the model scores."""
        return int(self.layers[-1][1].shape[0])

    @property
    def n_inputs(self) -> int:
        """Length of the observation the model reads."""
        return int(self.layers[0][0].shape[0])

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Logits of every action for one observation (or a batch of rows)."""
        h = np.asarray(obs, dtype=np.float32)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < last:
                h = np.tanh(h)
        return h

    def legal_logits(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Logits of the legal indices only: the last layer is computed for those columns alone (fast)."""
        h = np.asarray(obs, dtype=np.float32)
        for w, b in self.layers[:-1]:
            h = np.tanh(h @ w + b)
        w, b = self.layers[-1]
        return h @ w[:, legal] + b[legal]

    def save(self, path: str | Path) -> None:
        """Write the model as a compressed ``.npz`` (weights as float16: half the size, the same choices)."""
        arrays: dict[str, Any] = {"format": np.array(FORMAT), "ruleset": np.array(self.ruleset),
                                  "fingerprint": np.array(self.fingerprint), "layers": np.array(len(self.layers)),
                                  "meta": np.array(json.dumps(self.meta, sort_keys=True))}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"] = w.astype(np.float16)
            arrays[f"b{i}"] = b.astype(np.float16)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as fh:
            np.savez_compressed(fh, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> PolicyNet:
        """Read a model written by `save` (a `PolicyModelError` if it is not one)."""
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["format"]) != FORMAT:
                    raise PolicyModelError(f"{path}: not a policy model (format {str(data['format'])!r})")
                layers = tuple((data[f"w{i}"].astype(np.float32), data[f"b{i}"].astype(np.float32))
                               for i in range(int(data["layers"])))
                return cls(str(data["ruleset"]), str(data["fingerprint"]), layers, json.loads(str(data["meta"])))
        except PolicyModelError:
            raise
        except UNREADABLE as e:
            if sb3_model(path):  # `trpg-arena train ENCOUNTER`'s model.zip: another agent plays it
                raise PolicyModelError(f"{path}: a MaskablePPO model (as `trpg-arena train ENCOUNTER` saves), not a "
                                       f"ppo policy (.npz): play it with policy:{path}") from None
            raise PolicyModelError(f"{path}: not a policy model ({why(e)})") from None


def policy_path(ruleset: str) -> Path:
    """Where the shipped policy of a rule system lies (``agents/learned/models/ppo-<ruleset>.npz``)."""
    return MODELS / f"ppo-{ruleset}.npz"


def layout_fingerprint(ruleset: str) -> tuple[str, int, int]:
    """The canonical layout's fingerprint, observation size and action count for a rule system."""
    from trpg_arena.rules.core.action_layout import action_layout_for

    actions = action_layout_for(ruleset)
    return f"{actions.features.fingerprint}-{actions.fingerprint}", actions.features.size, actions.size


def check_fits(net: PolicyNet, ruleset: str, where: str) -> None:
    """Refuse a model of another rule system or another canonical layout (one line saying which)."""
    if net.ruleset != ruleset:
        raise PolicyModelError(f"{where} was trained for {net.ruleset}, not {ruleset}")
    fingerprint, n_obs, n_actions = layout_fingerprint(ruleset)
    if net.fingerprint != fingerprint or net.n_inputs != n_obs or net.n_actions != n_actions:
        raise PolicyModelError(f"{where} was trained on canonical layout {net.fingerprint}; {ruleset}'s is now "
                               f"{fingerprint}: retrain it with `trpg-arena train {ruleset}`")


def load_policy(ruleset: str, path: str | Path | None = None) -> PolicyNet:
    """The policy of a rule system (the shipped one unless `path`), checked against its canonical layout."""
    if path is None:
        return _shipped(ruleset)
    if not Path(path).is_file():
        raise PolicyModelError(f"no policy model at '{path}'")
    net = PolicyNet.load(path)
    check_fits(net, ruleset, str(path))
    return net


@functools.cache
def _shipped(ruleset: str) -> PolicyNet:
    path = policy_path(ruleset)
    if not path.is_file():
        raise PolicyModelError(f"no ppo policy shipped for {ruleset} (build one with `trpg-arena train {ruleset}`)")
    net = PolicyNet.load(path)
    check_fits(net, ruleset, f"the shipped {ruleset} ppo policy")
    return net


HELPS = {"temperature": "0 plays the most probable legal action; above 0 samples from the policy at that "
                        "temperature",
         "model": "policy model file (default: the one shipped for the rule system)"}
LIMITS = {"temperature": Limit(0, 100)}
PRESETS = {"normal": {"temperature": 0.0}, "varied": {"temperature": 1.0}}


@register_agent("ppo", presets=PRESETS, helps=HELPS, limits=LIMITS)
class PPOAgent(Agent):
    """The rule system's shipped policy network (numpy), any encounter of the system, either side."""

    @classmethod
    def check_params(cls, ruleset: str, params: dict[str, Any]) -> None:
        """A ``model`` file must be a policy of this rule system on its canonical layout."""
        if params.get("model"):
            load_policy(ruleset, params["model"])

    def __init__(self, ruleset: str | None = None, rng: np.random.Generator | None = None, seed: int | None = None,
                 temperature: float = 0.0, model: str = "") -> None:
        super().__init__(ruleset, rng if rng is not None else np.random.default_rng(seed))
        if ruleset is None:
            raise ValueError("ppo: the agent plays one rule system (its policy's)")
        self.temperature = temperature
        self.net = load_policy(ruleset, model or None)
        self.name = model or f"the {ruleset} ppo policy"

    def _scores(self, combat: Combat) -> tuple[list[Action], np.ndarray]:
        """The legal actions and the policy's probability of each."""
        from trpg_arena.agents.canonical import CanonicalCodec

        if combat.encounter.ruleset != self.net.ruleset:
            raise PolicyModelError(f"{self.name} plays {self.net.ruleset}, not {combat.encounter.ruleset}")
        try:
            codec = CanonicalCodec.for_combat(combat)
            legal = combat.legal_view()
            index = codec.legal_indices(combat)
            obs = codec.observe(combat)
        except TrpgArenaError as e:  # an encounter or decision beyond the layout's limits
            raise PolicyModelError(f"{self.name} cannot play {combat.encounter.ruleset}/"
                                   f"{combat.encounter.encounter}: {e}") from None
        z = self.net.legal_logits(obs, index)
        z = z - z.max()
        p = np.exp(z / self.temperature) if self.temperature > 0 else np.exp(z)
        return list(legal), p / p.sum()

    def _pick(self, probs: np.ndarray) -> int:
        if self.temperature > 0:
            return int(self.rng.choice(len(probs), p=probs))
        return int(np.argmax(probs))

    def act(self, combat: Combat) -> Action:
        """The policy's choice among the legal actions of the current decider."""
        legal, probs = self._scores(combat)
        return legal[self._pick(probs)] if len(legal) > 1 else legal[0]

    def propose(self, combat: Combat) -> Proposal:
        """The choice with the policy's probability, the next most probable actions, and the scripted choice.

        A GM reviewing the proposal reads how sure the policy is, what it would do otherwise and whether the
        system's scripted policy (whose reasons the GM may know) agrees; the choice is `act`'s.
        """
        legal, probs = self._scores(combat)
        i = self._pick(probs) if len(legal) > 1 else 0
        describe = combat.system.describe
        others = [int(j) for j in np.argsort(-probs) if int(j) != i][:3]
        reasons = [f"{describe(combat, legal[i])}: the {self.net.ruleset} policy gives it {probs[i]:.0%}"]
        if others:
            reasons.append(f"next best: {describe(combat, legal[others[0]])} ({probs[others[0]]:.0%})")
            scripted = self._scripted_choice(combat)
            if scripted is not None:
                k = legal.index(scripted)
                reasons.append("the scripted policy agrees" if k == i else
                               f"the scripted policy's choice: {describe(combat, scripted)} ({probs[k]:.0%} by the "
                               "policy)")
        return Proposal(legal[i], float(probs[i]), tuple(reasons),
                        tuple(Alternative(legal[j], float(probs[j]), f"{probs[j]:.0%}") for j in others))

    def _scripted_choice(self, combat: Combat) -> Action | None:
        """What the system's scripted agent plays here (a fresh one: it must not share this agent's RNG)."""
        from trpg_arena.agents.spec import agent_names, make_agent

        if "scripted" not in agent_names(self.net.ruleset):
            return None
        choice = make_agent("scripted", self.net.ruleset, seed=0).act(combat)
        return choice if choice in combat.legal_view() else None

    def get_state(self) -> dict[str, Any]:
        """The RNG (sampling at a temperature above 0)."""
        return {"rng": rng_state(self.rng)}

    def set_state(self, state: dict[str, Any]) -> None:
        """Continue from `get_state`'s value."""
        set_rng_state(self.rng, state["rng"])
