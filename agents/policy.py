"""An agent that plays a trained stable-baselines3 / sb3-contrib model through the env codecs.

`trpg-arena train` writes ``model.zip`` and beside it ``model.json``, the model's card: the rule
system, encounter, side and codec layout it was trained for, how it was trained and how it did.
A model trained on the canonical layout (the envs' default, `trpg_arena.agents.canonical`) plays every
encounter of its rule system, from either side. A model of the older per-encounter layout
(``layout="encounter"``, `Codec.layout`) only fits encounters with that same layout: playing it
anywhere else is refused with a message saying what it was trained for, instead of playing nonsense. A model chooses
among the legal actions only (the mask); an illegal choice would be a bug, and it raises.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from trpg_arena.agents.base import Agent
from trpg_arena.agents.canonical import CanonicalCodec
from trpg_arena.agents.codec import Codec
from trpg_arena.agents.learned.npz import SB3_ENTRIES, UNREADABLE
from trpg_arena.agents.proposal import Alternative, Proposal
from trpg_arena.agents.spec import UnknownAgentError, register_agent
from trpg_arena.rules import Action, Combat, TrpgArenaError

CARD_FORMAT = "trpg-arena-policy/1"


class PolicyError(TrpgArenaError, ValueError):
    """A model that does not fit the combat it is asked to play, or that chose an illegal action."""


def card_path(model: str | Path) -> Path:
    """Where the card of a model file lies: ``runs/x/model.zip`` -> ``runs/x/model.json``."""
    return Path(model).with_suffix(".json")


def read_card(model: str | Path) -> dict[str, Any] | None:
    """The card of a model file, or None for a model saved without one; a broken card is a `PolicyError`."""
    path = card_path(model)
    if not path.is_file():
        return None
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise PolicyError(f"{path}: not a model card ({e})") from None
    if not isinstance(card, dict) or card.get("format") != CARD_FORMAT:
        raise PolicyError(f"{path}: not a model card (expected format '{CARD_FORMAT}')")
    return card


def check_model_archive(path: str | Path) -> None:
    """Refuse (`PolicyError`) a file that is no archive SB3 saved a model in, without loading torch.

    Any zip archive would pass a look at its format alone, and SB3 then fails on it with a bare assertion.
    """
    if not zipfile.is_zipfile(path):
        raise PolicyError(f"{path}: not a saved MaskablePPO model (SB3 saves a .zip archive)")
    try:
        with zipfile.ZipFile(path) as archive:
            missing = [name for name in SB3_ENTRIES if name not in archive.namelist()]
            data = json.loads(archive.read("data")) if not missing else {}
    except UNREADABLE as e:  # a damaged archive, or data that is no JSON
        raise PolicyError(f"{path}: not a saved MaskablePPO model ({e})") from None
    if missing:
        raise PolicyError(f"{path}: not a saved MaskablePPO model (the archive lacks {', '.join(missing)})")
    if not isinstance(data, dict) or not {"observation_space", "action_space"} <= data.keys():
        raise PolicyError(f"{path}: not a saved MaskablePPO model (its data names no observation and action spaces)")


def unfit_layouts(combat: Combat, here: dict[str, Any], shape: Any, actions: Any) -> str:
    """Why a card-less model fits neither layout of ``combat``: both layouts' sizes, and whose model it may be.

    A model saved without its card is tried on the system's canonical layout, then on the encounter's own;
    naming only the one tried last would send its owner after the wrong sizes.
    """
    from trpg_arena.rules import RULESETS
    from trpg_arena.rules.core.action_layout import action_layout_for

    ruleset = combat.encounter.ruleset

    def sizes(system: str) -> tuple[tuple[int], int]:
        layout = action_layout_for(system)
        return (layout.features.size,), layout.size

    (obs,), n = sizes(ruleset)
    where = f"{ruleset}/{combat.encounter.label}"
    if sizes(ruleset) == (shape, actions):  # the system's canonical model, on an encounter beyond that layout
        try:
            CanonicalCodec.for_combat(combat)
        except TrpgArenaError as e:
            return f"the sizes of {ruleset}'s canonical layout, which cannot hold {where} ({e})"
    text = (f"which fit no layout of {where}: {ruleset}'s canonical layout (every {ruleset} encounter) has ({obs},) "
            f"and {n}, this encounter's own ({here['observations']},) and {here['actions']}. ")
    owners = [r for r in RULESETS if r != ruleset and sizes(r) == (shape, actions)]
    if owners:
        text += f"Those are {owners[0]}'s canonical sizes: a {owners[0]} model, for {owners[0]} encounters? "
    else:
        text += "It may be a model of another rule system, or of another encounter's own layout. "
    return text + "Its card (model.json beside it) would say what it was trained for"


@register_agent("policy", positional="path")
class PolicyAgent(Agent):
    """Plays a saved MaskablePPO model (``policy:<path to model.zip>``); masks keep it legal."""

    def __init__(self, ruleset: str | None = None, rng: np.random.Generator | None = None, path: str = "",
                 deterministic: bool = True) -> None:
        from sb3_contrib import MaskablePPO

        super().__init__(ruleset, rng)
        self.card = self._checked_card(ruleset, path)
        self.path = path
        try:
            self.model = MaskablePPO.load(str(path), device="cpu")
        except (*UNREADABLE, AssertionError) as e:  # as an .npz fails; SB3 asserts its archive's data is there
            raise PolicyError(f"{path}: not a saved MaskablePPO model ({e})") from None
        self.deterministic = deterministic
        self._fits: set[int] = set()  # id() of encounters whose layout was checked

    @classmethod
    def check_params(cls, ruleset: str, params: dict[str, Any]) -> None:
        """The model file must exist, be a zip archive (as SB3 saves) and, if it has a card, be of this system."""
        cls._checked_card(ruleset, params.get("path", ""))

    @staticmethod
    def _checked_card(ruleset: str | None, path: str) -> dict[str, Any] | None:
        if not path:
            raise UnknownAgentError("agent 'policy' needs a model file: policy:<path to model.zip>")
        if not Path(path).is_file():
            raise UnknownAgentError(f"agent 'policy': no model file at '{path}'")
        check_model_archive(path)
        card = read_card(path)
        if card is not None and ruleset is not None and card["ruleset"] != ruleset:
            raise PolicyError(f"{path}: a {card['ruleset']} model ({card['encounter']}) cannot play {ruleset}")
        return card

    @classmethod
    def of_model(cls, model: Any, card: dict[str, Any] | None = None, deterministic: bool = True) -> PolicyAgent:
        """An agent over a model in memory (training's evaluations play the model being trained)."""
        agent = cls.__new__(cls)
        Agent.__init__(agent, card["ruleset"] if card else None, None)
        agent.card, agent.path, agent.model, agent.deterministic = card, "(in memory)", model, deterministic
        agent._fits = set()
        return agent

    def propose(self, combat: Combat) -> Proposal:
        """The model's choice, with the next most probable legal actions as alternatives."""
        codec = self._codec(combat)
        d = combat.decision
        assert d is not None and d.side is not None  # `Combat.decision` names the side
        canonical = isinstance(codec, CanonicalCodec)
        if not canonical:  # the canonical layout is seen from the decider's side: it plays either side
            self._check_side(combat, d.side)
        obs = codec.observe(combat, d.side)
        mask = codec.mask(combat).astype(bool)

        def decode(i: int) -> Action | None:
            if isinstance(codec, CanonicalCodec):
                return codec.decode(i, combat)
            a = codec.decode(i)
            return a if combat.is_legal(a) else None

        action, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        index = int(np.asarray(action).item())
        chosen = decode(index)
        if chosen is None:
            raise PolicyError(f"{self.path}: the model chose action {index}, which is not legal for "
                              f"{d.actor} at {d.step} (the mask allows {int(mask.sum())} actions): a bug")
        probs = self._probabilities(obs, mask)
        ranked = [int(i) for i in np.argsort(-probs) if mask[i] and int(i) != index][:3]
        return Proposal(chosen, float(probs[index]),
                        (f"the trained policy gives it {probs[index]:.0%} of its choice",),
                        tuple(Alternative(a, float(probs[i])) for i in ranked if (a := decode(i)) is not None))

    def act(self, combat: Combat) -> Action:
        """The model's choice among the legal actions of the current decider."""
        return self.propose(combat).action

    def _canonical(self) -> bool:
        """Whether the model reads the canonical layout: its card says so, or (no card) its spaces are that size."""
        if self.card is not None:
            return bool(self.card["layout"].get("kind") == "canonical")
        return False

    def _codec(self, combat: Combat) -> Codec | CanonicalCodec:
        canonical = self._canonical()
        if self.card is None:  # a model saved without its card: the canonical layout if its spaces have that size
            try:
                here = CanonicalCodec.for_combat(combat)
                shape = getattr(self.model.observation_space, "shape", None)
                canonical = shape == (here.obs_size,) and getattr(self.model.action_space, "n", None) == here.n_actions
            except TrpgArenaError:
                canonical = False
        codec = CanonicalCodec.for_combat(combat) if canonical else Codec.for_combat(combat)
        if id(combat.encounter) not in self._fits:
            self._check_fits(combat, codec)
            self._fits.add(id(combat.encounter))
        return codec

    def _check_side(self, combat: Combat, side: str) -> None:
        """Refuse to decide for a side the model was not trained to play (its observations mean other things)."""
        card = self.card or {}
        trained = card.get("side")
        if trained is not None and trained != "both" and trained != side:
            raise PolicyError(f"{self.path}: trained to play side '{trained}' of {card['ruleset']}/"
                              f"{card['encounter']}, asked to play side '{side}' of "
                              f"{combat.encounter.ruleset}/{combat.encounter.encounter}: play it on side "
                              f"'{trained}' (evaluate --no-swap) or train it with --side {side} or --self-play")

    def _check_fits(self, combat: Combat, codec: Any) -> None:
        """Refuse an encounter whose spaces differ from the ones the model was trained on, saying which."""
        here = codec.layout()
        where = f"{combat.encounter.ruleset}/{combat.encounter.label}"
        if self.card is not None:
            trained = self.card["layout"]
            if trained != here:
                if trained.get("kind") == "canonical":
                    raise PolicyError(f"{self.path}: trained on {self.card['ruleset']}'s canonical layout "
                                      f"{trained['fingerprint']} (codec v{trained['codec_version']}); this version's "
                                      f"is {here['fingerprint']} (codec v{here['codec_version']}): retrain it")
                raise PolicyError(
                    f"{self.path}: trained for {self.card['ruleset']}/{self.card['encounter']} "
                    f"({trained['observations']} observations, {trained['actions']} actions, codec "
                    f"v{trained['codec_version']}); {where} has {here['observations']} observations and "
                    f"{here['actions']} actions (codec v{here['codec_version']}): a policy plays only encounters "
                    f"with the layout it was trained for")
            return
        shape = getattr(self.model.observation_space, "shape", None)
        actions = getattr(self.model.action_space, "n", None)
        if shape != (here["observations"],) or actions != here["actions"]:
            raise PolicyError(f"{self.path}: the model expects {shape} observations and {actions} actions, "
                              f"{unfit_layouts(combat, here, shape, actions)}")

    def _probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The policy's masked action probabilities for one observation."""
        import torch

        policy = self.model.policy
        tensor, _ = policy.obs_to_tensor(obs)
        with torch.no_grad():
            dist = policy.get_distribution(tensor, action_masks=mask).distribution
            assert isinstance(dist, torch.distributions.Categorical)  # a Discrete action space
            probs = dist.probs.cpu().numpy()[0]
        return np.asarray(probs, dtype=float)
