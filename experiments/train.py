"""Recipe: MaskablePPO (sb3-contrib) on one encounter against a fixed opponent.

Writes ``model.zip``, ``curve.csv`` (episode, timestep, return) and ``curve.png`` under ``out``,
and reports training fps. The trained model plays as an agent: ``make_agent("policy:<out>/model.zip", ruleset)``.
"""

from __future__ import annotations

import csv
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console


@dataclass
class TrainArgs:
    """Arguments of the training recipe."""

    encounter: str = "moonlit/duel"
    """encounter file or built-in name"""
    steps: int = 20_000
    """total environment steps"""
    opponent: str = "random"
    """agent that plays the other side(s)"""
    side: str | None = None
    """learner's side (default: the encounter's first side)"""
    seed: int = 0
    """seed of the env and the policy"""
    out: Path = field(default_factory=lambda: Path("runs/train"))
    """output folder"""
    n_steps: int = 512
    """rollout length per update"""
    shaping: float = 0.5
    """reward shaping weight for damage dealt minus taken"""
    threads: int = 1
    """torch CPU threads: one is fastest for these small MLPs (measured 727 vs 107 fps with two on 2 cores)"""


def run_training(args: TrainArgs, console: Console) -> dict[str, Any]:
    """Train, save the model and the learning curve; return a summary (incl. fps)."""
    import gymnasium
    import torch
    from rich.progress import Progress
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.monitor import Monitor

    import trpg_arena.envs  # noqa: F401 - registers the envs
    from trpg_arena.rules import get_ruleset, load_encounter

    torch.set_num_threads(args.threads)
    enc = load_encounter(args.encounter)
    env = Monitor(gymnasium.make(get_ruleset(enc.ruleset).info.env_id, encounter=enc, opponent=args.opponent,
                                 side=args.side, shaping=args.shaping))
    curve: list[tuple[int, int, float]] = []

    class Track(BaseCallback):
        def __init__(self, progress: Progress, task: Any) -> None:
            super().__init__()
            self.progress, self.task = progress, task

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                if "episode" in info:
                    curve.append((len(curve) + 1, self.num_timesteps, float(info["episode"]["r"])))
            self.progress.update(self.task, completed=self.num_timesteps)
            return True

    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=64, seed=args.seed, verbose=0,
                        device="cpu")
    start = time.perf_counter()
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("training", total=args.steps)
        model.learn(total_timesteps=args.steps, callback=Track(progress, task))
    seconds = time.perf_counter() - start
    args.out.mkdir(parents=True, exist_ok=True)
    model.save(args.out / "model.zip")
    with (args.out / "curve.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["episode", "timestep", "return"])
        w.writerows(curve)
    _plot(curve, args.out / "curve.png", args.encounter)
    tail = [r for _, _, r in curve[-50:]]
    summary = {"encounter": args.encounter, "steps": model.num_timesteps, "seconds": round(seconds, 2),
               "fps": round(model.num_timesteps / seconds, 1), "episodes": len(curve),
               "mean_return_last_50": sum(tail) / len(tail) if tail else None, "model": str(args.out / "model.zip")}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary


def _plot(curve: list[tuple[int, int, float]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3))
    if curve:
        xs = [t for _, t, _ in curve]
        ys = [r for _, _, r in curve]
        k = max(1, len(ys) // 20)
        smooth = [sum(ys[max(0, i - k): i + 1]) / len(ys[max(0, i - k): i + 1]) for i in range(len(ys))]
        ax.plot(xs, ys, ".", alpha=0.3)
        ax.plot(xs, smooth, "-")
    ax.set_xlabel("timestep")
    ax.set_ylabel("episode return")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
