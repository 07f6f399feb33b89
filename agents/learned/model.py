"""A learned value model run with numpy alone: P(the deciding side wins | position features).

The weights are a small multilayer perceptron (tanh hidden layers, one logit out) saved as an ``.npz``
with the feature layout's fingerprint, the rule system and the input normalisation. Training (torch,
the ``train`` extra) lives in `trpg_arena.experiments.selfplay`; playing needs only this module.
A model whose fingerprint differs from the rule system's current feature layout was trained on other
features: loading it is refused with one clear error instead of playing nonsense.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from trpg_arena.agents.learned.npz import UNREADABLE, why
from trpg_arena.rules import TrpgArenaError

FORMAT = "trpg-arena-value/1"
MODELS = Path(__file__).parent / "models"


class ModelError(TrpgArenaError, ValueError):
    """A value model file that is missing, broken, or trained on another feature layout."""


@dataclass(frozen=True)
class ValueModel:
    """Weights of the value: a linear part (`skip`) plus an MLP (`layers`: (W, b) pairs, tanh between).

    The inputs are the feature vector followed by the hand-written value of the position, so
    the network starts from what the hand-written value knows and learns what it misses; inputs are
    standardised by (mean, scale) first.
    """

    ruleset: str
    fingerprint: str
    mean: np.ndarray
    scale: np.ndarray
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]
    skip: np.ndarray
    meta: dict[str, Any]

    @property
    def size(self) -> int:
        """How many features one position has (the hand-written value not counted)."""
        return int(self.mean.shape[0]) - 1

    def logits(self, x: np.ndarray, masks: np.ndarray | None = None) -> np.ndarray:
        """Win logits of a batch of positions (rows of features), shape (n,).

        With `masks` (k x hidden units of each hidden layer, concatenated), the logits under k dropout
        masks instead, shape (k, n): the spread says how far the network's own correction can be trusted
        (Monte Carlo dropout); the logistic term on the hand-written value is not masked.
        """
        h = (np.asarray(x, dtype=np.float32) - self.mean) / self.scale
        linear = h @ self.skip
        last = len(self.layers) - 1
        if masks is not None:
            h = np.broadcast_to(h, (len(masks), *h.shape))
        start = 0
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < last:
                h = np.tanh(h)
                if masks is not None:
                    width = w.shape[1]
                    h = h * masks[:, None, start:start + width]
                    start += width
        return h[..., 0] + linear

    @property
    def hidden_units(self) -> int:
        """Units of all hidden layers together (the width of a dropout mask)."""
        return sum(int(w.shape[1]) for w, _ in self.layers[:-1])

    def dropout_masks(self, k: int, rng: np.random.Generator) -> np.ndarray:
        """The given number of dropout masks at the training's dropout rate (kept units scaled up, as in training)."""
        rate = float(self.meta.get("dropout", 0.2)) or 0.2
        keep = rng.random((k, self.hidden_units)) >= rate
        return (keep / (1.0 - rate)).astype(np.float32)

    def predict(self, x: np.ndarray, masks: np.ndarray | None = None) -> np.ndarray:
        """P(deciding side wins) for rows of features + hand-written value, shape (n,) (or (k, n) with masks)."""
        z = np.clip(self.logits(x, masks), -30.0, 30.0)
        return 1.0 / (1.0 + np.exp(-z))

    def save(self, path: str | Path) -> None:
        """Write the model as a compressed ``.npz`` (weights as float32)."""
        arrays: dict[str, Any] = {"format": np.array(FORMAT), "ruleset": np.array(self.ruleset),
                                  "fingerprint": np.array(self.fingerprint), "mean": self.mean.astype(np.float32),
                                  "scale": self.scale.astype(np.float32), "layers": np.array(len(self.layers)),
                                  "skip": self.skip.astype(np.float32)}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"] = w.astype(np.float32)
            arrays[f"b{i}"] = b.astype(np.float32)
        arrays["meta"] = np.array(json.dumps(self.meta, sort_keys=True))
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as fh:
            np.savez_compressed(fh, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> ValueModel:
        """Read a model written by `save` (a `ModelError` if it is not one)."""
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["format"]) != FORMAT:
                    raise ModelError(f"{path}: not a value model (format {str(data['format'])!r})")
                layers = tuple((data[f"w{i}"].astype(np.float32), data[f"b{i}"].astype(np.float32))
                               for i in range(int(data["layers"])))
                return cls(str(data["ruleset"]), str(data["fingerprint"]), data["mean"].astype(np.float32),
                           data["scale"].astype(np.float32), layers, data["skip"].astype(np.float32),
                           json.loads(str(data["meta"])))
        except ModelError:
            raise
        except UNREADABLE as e:
            raise ModelError(f"{path}: not a value model ({why(e)})") from None


def model_path(ruleset: str) -> Path:
    """Where the shipped model of a rule system lies (``agents/learned/models/<ruleset>.npz``)."""
    return MODELS / f"{ruleset}.npz"


def check_fits(model: ValueModel, ruleset: str, where: str = "") -> None:
    """Refuse a model trained for another rule system or another feature layout (one line saying which)."""
    from trpg_arena.rules.core.features import layout_for

    layout = layout_for(ruleset)
    name = where or f"the {model.ruleset} value model"
    if model.ruleset != ruleset:
        raise ModelError(f"{name} was trained for {model.ruleset}, not {ruleset}")
    if model.fingerprint != layout.fingerprint or model.size != layout.size:
        raise ModelError(f"{name} was trained on feature layout {model.fingerprint} ({model.size} features); "
                         f"{ruleset}'s layout is now {layout.fingerprint} ({layout.size} features): retrain it "
                         f"with `trpg-arena train-value {ruleset}`")


def load_model(ruleset: str, path: str | Path | None = None) -> ValueModel:
    """The value model of a rule system (the shipped one unless `path`), checked against its feature layout."""
    if path is None:
        return _shipped(ruleset)
    if not Path(path).is_file():
        raise ModelError(f"no value model at '{path}'")
    model = ValueModel.load(path)
    check_fits(model, ruleset, str(path))
    return model


@functools.cache
def _shipped(ruleset: str) -> ValueModel:
    path = model_path(ruleset)
    if not path.is_file():
        raise ModelError(f"no value model shipped for {ruleset} (build one with `trpg-arena train-value {ruleset}`)")
    model = ValueModel.load(path)
    check_fits(model, ruleset, f"the shipped {ruleset} value model")
    return model
