"""Fit a system's learned value (torch, the ``train`` extra) on self-play positions and export it for numpy.

Targets learn from every generation together: all data files given (each generation's self-play) are
pooled, and the targets are TD(lambda) returns fitted over the pool: the first fit learns the final
outcomes, then each position's target becomes the lambda-return of the model's own estimates of the
same side's later positions in the same game (the outcome at the end), and the model is refitted on
them. ``lam=1`` is plain Monte Carlo. Positions are split into training and held-out sets by game, so
no held-out game leaks into training.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from trpg_arena.agents.learned.model import ValueModel
from trpg_arena.agents.learned.npz import UNREADABLE, why


@dataclass
class Positions:
    """Self-play positions: features, the deciding side's result, game/side/decision keys, hand value."""

    x: np.ndarray  # (n, size) float32
    won: np.ndarray  # (n,) 1.0 if the deciding side won the game, 0.0 if it lost, `draw` (0 by default) for a draw
    game: np.ndarray  # (n,) int: game id, unique over all files
    side: np.ndarray  # (n,) int: the deciding side's index
    decision: np.ndarray  # (n,) int: decision number in the game
    hand: np.ndarray  # (n,) hand-written value in [-1, 1] from the deciding side (nan if absent)
    fingerprint: str
    ruleset: str
    files: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.x.shape[0])

    def take(self, mask: np.ndarray) -> Positions:
        """The positions where `mask` holds."""
        return Positions(self.x[mask], self.won[mask], self.game[mask], self.side[mask], self.decision[mask],
                         self.hand[mask], self.fingerprint, self.ruleset, self.files)


def _first(data: Any, *names: str) -> np.ndarray:
    for n in names:
        if n in data:
            return np.asarray(data[n])
    raise KeyError(names[0])


def read_data(path: str | Path) -> dict[str, np.ndarray]:
    """Every array of a self-play data file; a file that is not one is a `ValueError` naming it and why."""
    try:
        with np.load(path, allow_pickle=False) as d:
            return {key: d[key] for key in d.files}
    except UNREADABLE as e:
        raise ValueError(f"{path}: not a self-play data file ({why(e)})") from None


def load_positions(paths: Sequence[str | Path], draw: float = 0.0) -> Positions:
    """Pool the positions of several data files (one generation each) of one rule system and layout.

    A drawn game's positions get the target `draw`: 0 learns the chance of winning, 0.5 the expected
    score. (Files of `train-value` before outcomes were signed record a draw as a loss.)
    """
    parts = []
    offset = 0
    fingerprint = ruleset = None
    for path in paths:
        d = read_data(path)
        try:
            fp = str(d["fingerprint"]) if "fingerprint" in d else ""
            rs = str(d["ruleset"]) if "ruleset" in d else ""
            if fingerprint is None:
                fingerprint, ruleset = fp, rs
            elif (fp, rs) != (fingerprint, ruleset):
                raise ValueError(f"{path}: {rs} data on layout {fp}; the others are {ruleset} on {fingerprint}")
            x = _first(d, "features", "x").astype(np.float32)
            outcome = _first(d, "outcome", "result").astype(np.float64)
            game = _first(d, "game", "game_id").astype(np.int64)
            side = _first(d, "side").astype(np.int64) if "side" in d else np.zeros(len(x), np.int64)
            decision = _first(d, "decision", "decision_number").astype(np.int64)
            hand = _first(d, "hand_value", "value").astype(np.float64) if ("hand_value" in d or "value" in d) \
                else np.full(len(x), np.nan)
            signed = "outcome_kind" in d or "game_result" in d  # 1 / 0 / -1; older files: 1 / 0 (draw = loss)
        except KeyError as e:
            raise ValueError(f"{path}: not a self-play data file ({why(e)})") from None
        _, game = np.unique(game, return_inverse=True)
        won = np.where(outcome > 0.5, 1.0, np.where(outcome < -0.5, 0.0, draw if signed else 0.0))
        parts.append((x, won, game + offset, side, decision, hand))
        offset += int(game.max()) + 1 if len(game) else 0
    if not parts:
        raise ValueError("no data files")
    x, won, game, side, decision, hand = (np.concatenate([p[i] for p in parts]) for i in range(6))
    return Positions(x, won, game, side, decision, hand, fingerprint=fingerprint or "", ruleset=ruleset or "",
                     files=[str(p) for p in paths])


def split_by_game(data: Positions, held_out: float, seed: int = 0) -> tuple[Positions, Positions]:
    """Training and held-out positions, whole games on each side of the split."""
    games = np.unique(data.game)
    rng = np.random.default_rng(seed)
    test_games = rng.choice(games, size=max(1, int(round(held_out * len(games)))), replace=False)
    test = np.isin(data.game, test_games)
    return data.take(~test), data.take(test)


def lambda_returns(data: Positions, estimates: np.ndarray, lam: float) -> np.ndarray:
    """TD(lambda) targets: per game and side, G_t = (1 - lam) v_{t+1} + lam G_{t+1}; the last one the result."""
    target = data.won.copy()
    order = np.lexsort((data.decision, data.side, data.game))
    g = data.game[order]
    s = data.side[order]
    for k in range(len(order) - 1, -1, -1):
        i = order[k]
        last = k == len(order) - 1 or g[k + 1] != g[k] or s[k + 1] != s[k]
        if last:
            target[i] = data.won[i]
        else:
            j = order[k + 1]
            target[i] = (1.0 - lam) * estimates[j] + lam * target[j]
    return target


@dataclass
class FitConfig:
    """How the network is shaped and trained."""

    hidden: tuple[int, ...] = (32,)
    epochs: int = 30
    patience: int = 3  # epochs without a better validation loss before stopping
    batch: int = 512
    lr: float = 1e-3
    weight_decay: float = 0.3
    dropout: float = 0.2
    lam: float = 0.8
    td_rounds: int = 1  # refits on lambda-returns after the first fit on outcomes (0: Monte Carlo only)
    seed: int = 0
    threads: int = 1


class _Net:
    """The torch twin of `ValueModel`: a logistic calibration of the hand-written value plus an MLP.

    The MLP's last layer starts at zero, so the fit starts from the calibrated hand-written value
    (`hand_init`) and moves only as far as held-out games keep confirming (early stopping).
    """

    def __new__(cls, width: int, hidden: tuple[int, ...], dropout: float, hand_init: tuple[float, float]) -> Any:
        import torch

        class Net(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.skip = torch.nn.Linear(1, 1)
                with torch.no_grad():
                    self.skip.weight.fill_(hand_init[0])
                    self.skip.bias.fill_(hand_init[1])
                layers: list[Any] = []
                w = width
                for h in hidden:
                    layers += [torch.nn.Linear(w, h), torch.nn.Tanh(), torch.nn.Dropout(dropout)]
                    w = h
                last = torch.nn.Linear(w, 1)
                with torch.no_grad():
                    last.weight.zero_()
                    last.bias.zero_()
                layers.append(last)
                self.mlp = torch.nn.Sequential(*layers)

            def forward(self, x: Any) -> Any:
                return (self.mlp(x) + self.skip(x[:, -1:]))[:, 0]

        return Net()


def _fit_torch(x: np.ndarray, y: np.ndarray, val: tuple[np.ndarray, np.ndarray], cfg: FitConfig,
               init: Any = None, hand_init: tuple[float, float] = (1.0, 0.0)) -> Any:
    """Adam on binary cross-entropy; the epoch with the lowest validation loss is kept (early stopping)."""
    import copy

    import torch

    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    net = init if init is not None else _Net(x.shape[1], cfg.hidden, cfg.dropout, hand_init)
    params = [{"params": net.mlp.parameters(), "weight_decay": cfg.weight_decay},
              {"params": net.skip.parameters(), "weight_decay": 0.0}]
    opt = torch.optim.AdamW(params, lr=cfg.lr)
    xt = torch.from_numpy(x.astype(np.float32))
    yt = torch.from_numpy(y.astype(np.float32))
    xv = torch.from_numpy(val[0].astype(np.float32))
    yv = torch.from_numpy(val[1].astype(np.float32))
    n = len(xt)
    gen = torch.Generator().manual_seed(cfg.seed)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    best, best_state, stale = float("inf"), copy.deepcopy(net.state_dict()), 0
    for _ in range(cfg.epochs):
        net.train()
        perm = torch.randperm(n, generator=gen)
        for start in range(0, n, cfg.batch):
            idx = perm[start:start + cfg.batch]
            opt.zero_grad()
            loss = loss_fn(net(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            v = float(loss_fn(net(xv), yv))
        if v < best - 1e-4:
            best, best_state, stale = v, copy.deepcopy(net.state_dict()), 0
        else:
            stale += 1
            if stale >= cfg.patience:
                break
    net.load_state_dict(best_state)
    net.eval()
    return net


def _export(net: Any, mean: np.ndarray, scale: np.ndarray, fingerprint: str, ruleset: str,
            meta: dict[str, Any]) -> ValueModel:
    import torch

    linears = [m for m in net.mlp if isinstance(m, torch.nn.Linear)]
    layers = tuple((m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()) for m in linears)
    skip = np.zeros(len(mean), np.float32)
    skip[-1] = float(net.skip.weight.detach()[0, 0])
    w, b = layers[-1]
    layers = (*layers[:-1], (w, b + float(net.skip.bias.detach()[0])))
    return ValueModel(ruleset, fingerprint, mean, scale, layers, skip, meta)


def inputs(data: Positions) -> np.ndarray:
    """The model's inputs: the features, then the hand-written value."""
    return np.concatenate([data.x, data.hand[:, None].astype(np.float32)], axis=1)


def fit_value(train: Positions, cfg: FitConfig, meta: dict[str, Any] | None = None) -> ValueModel:
    """Fit the value on `train` (outcomes first, then `td_rounds` refits on lambda-returns); a numpy model.

    A tenth of the training games is kept aside for early stopping.
    """
    fit, val = split_by_game(train, 0.1, seed=cfg.seed + 1)
    x_fit, x_val = inputs(fit), inputs(val)
    mean = x_fit.mean(axis=0).astype(np.float32)
    scale = (x_fit.std(axis=0) + 1e-3).astype(np.float32)
    xs, xvs = (x_fit - mean) / scale, (x_val - mean) / scale
    started = time.perf_counter()
    a, b = platt(fit.hand, fit.won)  # on the raw value (Newton converges there), then for standardised input
    a, b = a * float(scale[-1]), b + a * float(mean[-1])
    net = _fit_torch(xs, fit.won, (xvs, val.won), cfg, hand_init=(a, b))
    model = _export(net, mean, scale, train.fingerprint, train.ruleset, {})
    for _ in range(cfg.td_rounds if cfg.lam < 1.0 else 0):
        target = lambda_returns(fit, model.predict(x_fit), cfg.lam)
        val_target = lambda_returns(val, model.predict(x_val), cfg.lam)
        net = _fit_torch(xs, target, (xvs, val_target), cfg, init=net)
        model = _export(net, mean, scale, train.fingerprint, train.ruleset, {})
    info = {"hidden": list(cfg.hidden), "epochs": cfg.epochs, "lam": cfg.lam, "td_rounds": cfg.td_rounds,
            "dropout": cfg.dropout, "weight_decay": cfg.weight_decay, "positions": len(train),
            "games": int(len(np.unique(train.game))), "fit_seconds": round(time.perf_counter() - started, 1),
            **(meta or {})}
    return ValueModel(model.ruleset, model.fingerprint, model.mean, model.scale, model.layers, model.skip, info)


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    """Mean binary cross-entropy (probabilities clipped away from 0 and 1)."""
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def brier(p: np.ndarray, y: np.ndarray) -> float:
    """Mean squared error of the probabilities."""
    return float(np.mean((p - y) ** 2))


def hand_chance(hand: np.ndarray) -> np.ndarray:
    """The hand-written value in [-1, 1] read as a win chance, as search reads it ((v + 1) / 2)."""
    return np.clip((hand + 1.0) / 2.0, 0.0, 1.0)


def platt(train_hand: np.ndarray, train_won: np.ndarray) -> tuple[float, float]:
    """A logistic calibration a * v + b of the hand-written value, fitted on the training positions."""
    a, b = 3.0, 0.0
    for _ in range(200):  # Newton steps on two parameters
        z = np.clip(a * train_hand + b, -30, 30)
        p = 1 / (1 + np.exp(-z))
        g = np.array([np.sum((p - train_won) * train_hand), np.sum(p - train_won)])
        w = p * (1 - p)
        h = np.array([[np.sum(w * train_hand ** 2), np.sum(w * train_hand)], [np.sum(w * train_hand), np.sum(w)]])
        step = np.linalg.solve(h + 1e-6 * np.eye(2), g)
        a, b = a - step[0], b - step[1]
        if np.abs(step).max() < 1e-8:
            break
    return float(a), float(b)


def evaluate_value(model: ValueModel, train: Positions, test: Positions) -> dict[str, Any]:
    """Held-out log loss and Brier score: the learned value, the hand-written one (raw and calibrated), a constant."""
    y = test.won
    p = model.predict(inputs(test))
    base = float(train.won.mean())
    out: dict[str, Any] = {"held_out_positions": len(test), "held_out_games": int(len(np.unique(test.game))),
                           "learned": {"log_loss": log_loss(p, y), "brier": brier(p, y)},
                           "constant": {"log_loss": log_loss(np.full(len(y), base), y),
                                        "brier": brier(np.full(len(y), base), y)}}
    ok = ~np.isnan(test.hand)
    if ok.all() and len(test):
        raw = hand_chance(test.hand)
        a, b = platt(train.hand[~np.isnan(train.hand)], train.won[~np.isnan(train.hand)])
        cal = 1 / (1 + np.exp(-np.clip(a * test.hand + b, -30, 30)))
        out["hand_written"] = {"log_loss": log_loss(raw, y), "brier": brier(raw, y)}
        out["hand_written_calibrated"] = {"log_loss": log_loss(cal, y), "brier": brier(cal, y), "a": a, "b": b}
    return out


def calibration_plot(model: ValueModel, train: Positions, test: Positions, path: Path, title: str) -> None:
    """Reliability diagram on the held-out positions: the learned and the hand-written value."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bins = np.linspace(0, 1, 11)
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    ax.plot([0, 1], [0, 1], color="#999999", lw=1, ls="--")
    series = [("learned", model.predict(inputs(test)), "#3478f6")]
    if not np.isnan(test.hand).any():
        series.append(("hand-written (v+1)/2", hand_chance(test.hand), "#e6463c"))
    for label, p, color in series:
        which = np.clip(np.digitize(p, bins) - 1, 0, 9)
        xs, ys = [], []
        for b in range(10):
            m = which == b
            if m.sum() >= 20:
                xs.append(p[m].mean())
                ys.append(test.won[m].mean())
        ax.plot(xs, ys, marker="o", color=color, label=label)
    ax.set_xlabel("predicted chance the deciding side wins")
    ax.set_ylabel("observed share of wins")
    ax.set_title(title, fontsize=9)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=80)
    plt.close(fig)
