"""Recipe: MaskablePPO (sb3-contrib) on one encounter against an opponent agent, in N vectorised envs.

`TrainArgs` is the one description of the options: ``trpg-arena train`` is generated from its
fields (`experiments.cli`). Each run gets its own folder, named by system, encounter, seed and
time, under ``out`` (never overwritten), holding:

- ``model.zip`` and its card ``model.json`` (what it was trained for, the command's arguments,
  steps, wall time, fps, the evaluations), played as ``--agents policy:<run>/model.zip``;
- ``curve.csv`` / ``curve.png`` (episode returns), ``eval.csv`` / ``eval.png`` (win rate against the
  evaluation opponent every ``eval_every`` steps), ``checkpoints/`` (``--resume`` continues one);
- ``tb/`` TensorBoard logs (``tensorboard --logdir runs/train``).
"""

from __future__ import annotations

import csv
import json
import math
import time
from collections.abc import Callable
from dataclasses import MISSING, Field, asdict, dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from trpg_arena.experiments.league import League
from trpg_arena.experiments.out_files import check_folder
from trpg_arena.experiments.series.folders import fresh_folder
from trpg_arena.experiments.series.progress import Ticker
from trpg_arena.experiments.series.sprt import wilson
from trpg_arena.rules.core.dice import SEED_MAX

if TYPE_CHECKING:
    import gymnasium


# What only `trpg-arena train SYSTEM` (a rule system's ppo policy) reads: given with an encounter they are refused,
# not ignored, so nobody believes a run had a draw penalty it never had.
SYSTEM_POLICY_ONLY = ("games", "epochs", "rounds", "teacher", "init", "ppo_steps", "value_warmup", "ppo_lr",
                      "draw_penalty", "ppo_on", "data_on")
# The mirror image: what only `trpg-arena train ENCOUNTER` (one MaskablePPO model) reads, refused with a system's id.
ENCOUNTER_ONLY = ("steps", "opponent", "envs", "vec", "self_play", "pfsp", "eval_every", "eval_opponent", "resume")
# What only the PPO stage of `train SYSTEM` reads: given without --ppo-steps, refused rather than ignored
PPO_STAGE_ONLY = ("anchors", "latest", "snapshot_every", "value_warmup", "ppo_lr", "shaping", "n_steps", "batch_size")
# torch segfaults on absurd thread counts, and a million envs grow in memory until the process is killed: both are
# refused beyond these, far above what a machine running these small MLPs can use
MAX_THREADS = 256
MAX_ENVS = 256


@dataclass
class TrainArgs:
    """Arguments of the training recipe (each field's ``help`` is its CLI help)."""

    encounter: str = field(default="moonlit/duel", metadata={"help": "encounter file or built-in name; a rule "
                                                             "system's id trains its ppo policy (docs/ppo.md)",
                                                             "argument": True})
    steps: int = field(default=20_000, metadata={"help": "environment steps to train (all envs together), rounded up "
                                                         "to whole rollouts (--n-steps x --envs); with --resume, "
                                                         "steps more than the checkpoint's"})
    opponent: str = field(default="random", metadata={"help": "agent spec playing the other side(s)"})
    side: str | None = field(default=None, metadata={"help": "learner's side (default: the encounter's first; with a "
                                                             "rule system's id and --ppo-steps, the PPO stage's side: "
                                                             "default both)"})
    seed: int = field(default=0, metadata={"help": "seed of the envs and the policy"})
    envs: int = field(default=1, metadata={"help": "environments stepped together"})
    vec: str = field(default="dummy", metadata={"help": "dummy (one process) or subproc (a process per env)"})
    n_steps: int = field(default=512, metadata={"help": "rollout length per env and update"})
    batch_size: int = field(default=64, metadata={"help": "minibatch size"})
    shaping: float = field(default=0.5, metadata={"help": "reward for damage dealt minus taken (fractions of max HP)"})
    self_play: bool = field(default=False, metadata={
        "help": "a league: the learner's own snapshots and the anchors as opponents, both sides (--opponent unused)"})
    snapshot_every: int = field(default=10_000, metadata={"help": "steps between league snapshots"})
    anchors: str = field(default="scripted", metadata={"help": "fixed league opponents, comma-separated specs"})
    latest: float = field(default=0.8, metadata={"help": "share of league episodes against the latest snapshot"})
    pfsp: bool = field(default=False, metadata={
        "help": "weight older league opponents by how often the learner still loses to them"})
    eval_every: int = field(default=0, metadata={"help": "steps between evaluations (0: only at the end)"})
    eval_games: int = field(default=20, metadata={"help": "games per evaluation"})
    eval_opponent: str = field(default="scripted", metadata={"help": "agent spec the evaluations play"})
    checkpoint_every: int = field(default=0, metadata={"help": "steps between checkpoints (0: none); with a rule "
                                                            "system's id and --ppo-steps, policies kept in the run's "
                                                            "checkpoints/"})
    resume: Path | None = field(default=None, metadata={"help": "a checkpoint or model .zip to continue"})
    threads: int = field(default=1, metadata={
        "help": "torch CPU threads (one is fastest for these small MLPs: 727 vs 107 fps with two on 2 cores)"})
    out: Path = field(default=Path("runs/train"), metadata={"help": "folder that holds the run folders"})
    games: int = field(default=400, metadata={"help": "with a rule system's id: scripted self-play games the policy "
                                                      "is cloned from"})
    epochs: int = field(default=10, metadata={"help": "with a rule system's id: behaviour-cloning epochs"})
    rounds: int = field(default=0, metadata={"help": "with a rule system's id: DAgger rounds after the cloning, or "
                                                     "from --init (the policy plays one side, the teacher labels, "
                                                     "refit on all)"})
    teacher: str = field(default="scripted", metadata={"help": "with a rule system's id: the agent spec whose "
                                                               "choices are cloned (e.g. trained)"})
    init: Path | None = field(default=None, metadata={"help": "with a rule system's id: a ppo model (.npz) to start "
                                                               "from instead of cloning"})
    ppo_steps: int = field(default=0, metadata={"help": "with a rule system's id: MaskablePPO steps after the cloning, "
                                                        "warm-started from it, in a self-play league (--anchors, "
                                                        "--latest, --snapshot-every, --shaping apply)"})
    value_warmup: int = field(default=2048, metadata={"help": "with --ppo-steps: first steps that train the value "
                                                              "alone (the cloned policy frozen)"})
    ppo_lr: float = field(default=3e-5, metadata={"help": "with --ppo-steps: learning rate (small: the cloned "
                                                          "policy is a good start)"})
    draw_penalty: float = field(default=0.0, metadata={
        "help": "with --ppo-steps: taken off a drawn episode's last reward (a finishing incentive; a win is +1, "
                "a loss -1)"})
    data_on: str = field(default="", metadata={"help": "with a rule system's id: comma-separated encounters of the "
                                                        "system the data's games (cloning, DAgger rounds) are played "
                                                        "on, in turn; `generated` names a fresh generated encounter "
                                                        "at each of its turns (default: its built-ins and generated "
                                                        "ones)"})
    ppo_on: str = field(default="", metadata={"help": "with --ppo-steps: comma-separated encounters of the system "
                                                      "the PPO stage plays, one drawn per episode; `generated` "
                                                      "stands for fresh generated ones in its share (default: its "
                                                      "built-ins and generated ones)"})

    def check(self) -> None:
        """Refuse bad values with one line naming the option, and options this encounter's training never reads."""
        defaults = {f.name: f.default for f in fields(self)}
        for name in SYSTEM_POLICY_ONLY:
            if getattr(self, name) != defaults[name]:
                raise ValueError(f"--{name.replace('_', '-')} is read only when training a rule system's ppo policy "
                                 f"(train SYSTEM), not a model for the encounter {self.encounter}")
        for name in ("steps", "envs", "n_steps", "batch_size", "eval_games", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1")
        for name, most in (("envs", MAX_ENVS), ("threads", MAX_THREADS)):
            if getattr(self, name) > most:  # before the seed's range, which an absurd --envs turns negative
                raise ValueError(f"--{name} must lie between 1 and {most}, got {getattr(self, name)}")
        if not 0 <= self.seed <= SEED_MAX + 1 - self.envs:  # env i is seeded seed + i
            raise ValueError(f"--seed must lie between 0 and {SEED_MAX + 1 - self.envs} (the envs take seed, seed + 1, "
                             f"...), got {self.seed}")
        if not 0.0 <= self.latest <= 1.0:
            raise ValueError("--latest must lie between 0 and 1")
        if not math.isfinite(self.shaping):
            raise ValueError(f"--shaping must be a finite number, got {self.shaping}")
        if self.self_play and self.snapshot_every < 1:
            raise ValueError("--snapshot-every must be at least 1")
        for name in ("eval_every", "checkpoint_every"):
            if getattr(self, name) < 0:
                raise ValueError(f"--{name.replace('_', '-')} must be 0 or more")
        if self.vec not in ("dummy", "subproc"):
            raise ValueError("--vec must be 'dummy' or 'subproc'")
        if self.resume is not None:
            check_resume_file(self.resume)
        check_folder(self.out)  # now, not when the model is saved after the training

    def check_encounter(self, encounter: Any) -> None:
        """Refuse a side `encounter` lacks and an agent spec that does not play its system, before any work."""
        if self.side is not None:
            check_side(self.side, [encounter])
        for option, spec in (("--opponent", self.opponent), ("--eval-opponent", self.eval_opponent),
                             *(("--anchors", anchor) for anchor in _specs(self.anchors))):
            check_spec(option, spec, encounter.ruleset)

    def check_system(self) -> None:
        """With a rule system's id: refuse the options only a model for one encounter reads, and a bad --out.

        The rest of `train SYSTEM`'s options are checked by `PolicyTrainArgs.check`.
        """
        defaults = {f.name: field_default(f) for f in fields(self)}
        for name in ENCOUNTER_ONLY:
            if getattr(self, name) != defaults[name]:
                raise ValueError(f"--{name.replace('_', '-')} is read only when training a model for one encounter "
                                 f"(train ENCOUNTER), not a rule system's ppo policy ({self.encounter})")
        if not self.ppo_steps:
            for name in PPO_STAGE_ONLY:
                if getattr(self, name) != defaults[name]:
                    raise ValueError(f"--{name.replace('_', '-')} with a rule system's id is the PPO stage's: give "
                                     "--ppo-steps too")
        check_folder(self.out)  # now, not when the model is saved after the training


def check_side(side: str, encounters: list[Any]) -> None:
    """Refuse a learner's side that some of the encounters lack (``both`` fits every one)."""
    if side == "both":
        return
    for enc in encounters:
        if side not in enc.sides():
            raise ValueError(f"--side: {enc.encounter} has no side '{side}' (its sides: {', '.join(enc.sides())}, "
                             "or 'both')")


def check_spec(option: str, spec: str, ruleset: str) -> None:
    """An agent spec checked as every command checks one, its error naming the option it came from."""
    from trpg_arena.agents.spec import check_agent
    from trpg_arena.rules import TrpgArenaError

    try:
        check_agent(spec, ruleset)
    except (TrpgArenaError, ValueError) as e:  # an unknown name, a bad value, a model file that does not load
        raise ValueError(f"{option}: {e}") from None


def check_resume_file(path: Path) -> None:
    """Refuse a ``--resume`` that is no file, or no model SB3 saved (before a run folder is made for it)."""
    from trpg_arena.agents.policy import PolicyError, check_model_archive

    if not Path(path).is_file():
        raise ValueError(f"--resume: no model file at '{path}'")
    try:
        check_model_archive(path)
    except PolicyError as e:
        raise ValueError(f"--resume: {e}") from None


def run_folder(args: TrainArgs, ruleset: str, encounter: str) -> Path:
    """A new folder ``<out>/<system>-<encounter>-s<seed>-<time>`` (a suffix when one exists already)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return fresh_folder(args.out / f"{ruleset}-{encounter}-s{args.seed}-{stamp}")


def make_vec_env(args: TrainArgs, encounter: Any, pool: Path | None = None) -> Any:
    """``args.envs`` Monitor-wrapped envs in a DummyVecEnv or SubprocVecEnv, seeded ``seed, seed + 1, ...``.

    With ``--self-play`` each env's opponent is a `League` over the snapshots in ``pool``.
    """
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    opponent: Any = args.opponent
    side = args.side
    if args.self_play:
        assert pool is not None, "a league needs its pool folder"
        opponent = League(encounter.ruleset, pool, _specs(args.anchors), args.latest, args.pfsp)
        side = side or "both"
    # the encounter travels by name (a process per env loads its own: loaded ones hold unpicklable caches)
    factories: list[Callable[[], gymnasium.Env[Any, Any]]] = [
        _EnvFactory(encounter.ruleset, args.encounter, opponent, side, args.shaping) for _ in range(args.envs)]
    vec = SubprocVecEnv(factories) if args.vec == "subproc" else DummyVecEnv(factories)
    vec.seed(args.seed)
    return vec


@dataclass
class _EnvFactory:
    """Builds one training env (a picklable callable, as SubprocVecEnv needs)."""

    ruleset: str
    encounter: str
    opponent: Any  # an agent spec or a League
    side: str | None
    shaping: float

    def __call__(self) -> Any:
        import gymnasium
        from stable_baselines3.common.monitor import Monitor

        import trpg_arena.envs  # noqa: F401 - registers the envs
        from trpg_arena.rules import get_ruleset

        env_id = get_ruleset(self.ruleset).info.env_id
        return Monitor(gymnasium.make(env_id, encounter=self.encounter, opponent=self.opponent, side=self.side,
                                      shaping=self.shaping))


def evaluate_model(model: Any, card: dict[str, Any], encounter: Any, opponent: str, games: int,
                   seed: int = 10_000) -> dict[str, Any]:
    """The model on its side against ``opponent`` for ``games`` seeded games: wins, draws, losses, interval."""
    from trpg_arena.agents import make_agent
    from trpg_arena.agents.policy import PolicyAgent
    from trpg_arena.rules import Combat
    from trpg_arena.table.session import play

    learner = PolicyAgent.of_model(model, card)
    tally = {"wins": 0, "draws": 0, "losses": 0}
    sides = encounter.sides()
    for i in range(games):
        side = sides[i % 2] if card["side"] == "both" else card["side"]  # a league's learner plays both
        combat = Combat(encounter, seed=seed + i)
        agents = {s: learner if s == side else make_agent(opponent, encounter.ruleset, seed=seed + i)
                  for s in combat.sides}
        play(combat, agents)
        result = combat.result
        tally["wins" if result == side else "draws" if result == "draw" else "losses"] += 1
    low, high = wilson(tally["wins"], games)
    return {"opponent": opponent, "games": games, **tally, "win_rate": tally["wins"] / games,
            "interval": [round(low, 4), round(high, 4)]}


def run_training(args: TrainArgs, console: Console) -> dict[str, Any]:
    """Train, save the model, its card and the curves in a new run folder; return the card.

    Progress: a live bar on a terminal; plain lines elsewhere (a CI log), from the first second on.
    """
    from trpg_arena.rules import get_ruleset, load_encounter

    args.check()
    enc = load_encounter(args.encounter)  # a bad name is reported before the long imports
    args.check_encounter(enc)
    # torch and stable-baselines3 take many seconds to import: say what is going on before that
    console.print(f"train {args.encounter}: {args.steps:,} steps against "
                  f"{'a league' if args.self_play else args.opponent}; loading torch and stable-baselines3",
                  highlight=False)
    import torch
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from trpg_arena.agents.canonical import CanonicalCodec
    from trpg_arena.experiments.legal_head import trainer_options

    torch.set_num_threads(args.threads)
    side = args.side or ("both" if args.self_play else enc.sides()[0])
    system = get_ruleset(enc.ruleset)
    layout = CanonicalCodec.of(system, enc).layout()
    if args.resume is not None:  # a model of another layout is refused before its run folder is made
        _check_resumable(args.resume, layout)
    folder = run_folder(args, enc.ruleset, enc.encounter)
    card: dict[str, Any] = {
        "format": "trpg-arena-policy/1", "ruleset": enc.ruleset, "env_version": system.info.env_version,
        "encounter": enc.encounter, "side": side, "layout": layout,
        "algorithm": "MaskablePPO (sb3-contrib), LegalActionsPolicy (MlpPolicy scoring the legal actions only)",
        "command": "trpg-arena train " + " ".join(_command_line(args)),
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(args).items()},
    }
    console.print(f"run folder {folder}", highlight=False)
    pool = folder / "pool"
    if args.self_play:  # the league's snapshots; no empty folder without self-play
        pool.mkdir()
    env = make_vec_env(args, enc, pool)
    if args.resume is not None:
        model = MaskablePPO.load(str(args.resume), env=env, device="cpu")
    else:
        model = MaskablePPO(env=env, **trainer_options(), n_steps=args.n_steps, batch_size=args.batch_size,
                            seed=args.seed, verbose=0, device="cpu", tensorboard_log=str(folder / "tb"))
    curve: list[tuple[int, int, float]] = []
    evaluations: list[dict[str, Any]] = []
    league: list[dict[str, Any]] = []  # each snapshot, rated against the anchors

    class Track(BaseCallback):
        """Episode returns, progress with fps and the last win rate, evaluations and checkpoints."""

        def __init__(self, progress: Progress | Ticker, task: Any, total: int) -> None:
            super().__init__()
            self.progress, self.task, self.total = progress, task, total
            self.start = time.perf_counter()
            self.next_eval = args.eval_every or None
            self.next_checkpoint = args.checkpoint_every or None
            self.next_snapshot = args.snapshot_every if args.self_play else None

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                if "episode" in info:
                    curve.append((len(curve) + 1, self.num_timesteps, float(info["episode"]["r"])))
            done = self.num_timesteps - self.model._num_timesteps_at_start
            fps = done / max(1e-9, time.perf_counter() - self.start)
            if self.next_eval is not None and done >= self.next_eval and done < self.total:  # the end has its own
                self.next_eval += args.eval_every
                evaluations.append({"steps": self.num_timesteps, **evaluate_model(
                    self.model, card, enc, args.eval_opponent, args.eval_games)})
                self.logger.record("eval/win_rate", evaluations[-1]["win_rate"])
            if self.next_snapshot is not None and done >= self.next_snapshot:
                self.next_snapshot += args.snapshot_every
                league.append(_snapshot(self.model, card, enc, pool, self.num_timesteps, args))
            if self.next_checkpoint is not None and done >= self.next_checkpoint:
                self.next_checkpoint += args.checkpoint_every
                self.model.save(folder / "checkpoints" / f"step-{self.num_timesteps}.zip")
            rate = win_rate_text(evaluations[-1]) if evaluations else "-"  # with its steps: not the final one
            if isinstance(self.progress, Ticker):
                self.progress.update(done, "" if rate == "-" else f"win rate {rate}")
            else:
                self.progress.update(self.task, completed=done, fps=f"{fps:,.0f}", rate=rate)
            return True

    total = whole_rollouts(args.steps, model.n_steps * model.n_envs)
    if total != args.steps:  # said now: the progress counts to the total, the card keeps what was asked
        console.print(f"{args.steps:,} steps rounded up to {total:,}: MaskablePPO trains whole rollouts of "
                      f"{model.n_steps * model.n_envs:,} steps ({model.n_steps:,} per env x {model.n_envs} "
                      f"env{'s' if model.n_envs > 1 else ''})", highlight=False)
    at_start = model.num_timesteps  # a resumed model's steps before this run (--steps trains that many more)
    start = time.perf_counter()
    columns = (TextColumn("training"), BarColumn(), TextColumn("{task.completed:,}/{task.total:,} steps"),
               TextColumn("{task.fields[fps]} fps"), TextColumn("win rate {task.fields[rate]}"),
               TimeRemainingColumn())
    if console.is_terminal:
        with Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task("training", total=total, fps="-", rate="-")
            model.learn(total_timesteps=total, callback=Track(progress, task, total), tb_log_name="ppo",
                        reset_num_timesteps=args.resume is None)
    else:
        ticker = Ticker(console, f"training {args.encounter}", total, unit="steps")
        model.learn(total_timesteps=total, callback=Track(ticker, None, total), tb_log_name="ppo",
                    reset_num_timesteps=args.resume is None)
        ticker.finish()
    seconds = time.perf_counter() - start
    env.close()
    trained = model.num_timesteps
    console.print(f"evaluating against {args.eval_opponent} ({args.eval_games} games)...")
    evaluations.append({"steps": trained, **evaluate_model(model, card, enc, args.eval_opponent, args.eval_games)})
    console.print(f"final evaluation: win rate {win_rate_text(evaluations[-1])} ({evaluations[-1]['wins']} won, "
                  f"{evaluations[-1]['draws']} drawn, {evaluations[-1]['losses']} lost)", highlight=False)
    model.save(folder / "model.zip")
    tail = [r for _, _, r in curve[-50:]]
    card.update({"steps": trained, "steps_this_run": trained - at_start, "seconds": round(seconds, 2),
                 "fps": round((trained - at_start) / seconds, 1),
                 "episodes": len(curve), "mean_return_last_50": sum(tail) / len(tail) if tail else None,
                 "evaluations": evaluations, "league": league, "model": str(folder / "model.zip"),
                 "run": str(folder)})
    (folder / "model.json").write_text(json.dumps(card, indent=2), encoding="utf-8")
    _write_csv(folder / "curve.csv", ["episode", "timestep", "return"], curve)
    _write_csv(folder / "eval.csv", ["steps", "opponent", "games", "wins", "draws", "losses", "win_rate"],
               [[e[k] for k in ("steps", "opponent", "games", "wins", "draws", "losses", "win_rate")]
                for e in evaluations])
    _plot_curve(curve, folder / "curve.png", f"{enc.ruleset}/{enc.encounter}")
    _plot_evaluations(evaluations, folder / "eval.png", f"{enc.ruleset}/{enc.encounter} vs {args.eval_opponent}")
    return card


def whole_rollouts(steps: int, rollout: int) -> int:
    """``steps`` rounded up to whole rollouts of ``rollout`` steps: what SB3's ``learn(steps)`` trains."""
    return -(-steps // rollout) * rollout


def win_rate_text(evaluation: dict[str, Any]) -> str:
    """An evaluation's win rate in the progress lines' words, with the step it was measured at."""
    return f"{evaluation['win_rate']:.0%} vs {evaluation['opponent']} at {evaluation['steps']:,} steps"


def _check_resumable(path: Path, layout: dict[str, Any]) -> None:
    """Refuse a ``--resume`` model that does not load, or whose spaces are not this encounter's layout's."""
    from sb3_contrib import MaskablePPO

    from trpg_arena.agents.learned.npz import UNREADABLE

    try:
        model = MaskablePPO.load(str(path), device="cpu")
    except (*UNREADABLE, AssertionError) as e:  # SB3 asserts that the archive holds its data and parameters
        raise ValueError(f"--resume: {path}: not a saved MaskablePPO model ({e})") from None
    shape = getattr(model.observation_space, "shape", None)
    actions = getattr(model.action_space, "n", None)
    if shape != (layout["observations"],) or actions != layout["actions"]:
        raise ValueError(f"--resume: {path} expects {shape} observations and {actions} actions; this encounter's "
                         f"layout has ({layout['observations']},) and {layout['actions']}")


def _snapshot(model: Any, card: dict[str, Any], encounter: Any, pool: Path, steps: int, args: TrainArgs,
              ) -> dict[str, Any]:
    """Freeze the learner into the league's pool (model and card) and rate it against each anchor."""
    path = pool / f"step-{steps}.zip"
    model.save(path)
    path.with_suffix(".json").write_text(json.dumps({**card, "steps": steps}, indent=2), encoding="utf-8")
    return {"snapshot": path.name, "steps": steps,
            "against": [evaluate_model(model, card, encounter, anchor, args.eval_games) for anchor in
                        _specs(args.anchors)]}


def _specs(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def field_default(f: Field[Any]) -> Any:
    """A dataclass field's default (what its factory makes), or MISSING when it has none."""
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return MISSING


def _command_line(args: TrainArgs) -> list[str]:
    """The ``trpg-arena train`` arguments that reproduce a run (defaults left out)."""
    words = [args.encounter]
    for f in fields(args):
        value = getattr(args, f.name)
        default = field_default(f)
        if f.name == "encounter" or value == default:
            continue
        flag = f"--{f.name.replace('_', '-')}"
        words += [flag if value else f"--no-{flag[2:]}"] if isinstance(value, bool) else [flag, str(value)]
    return words


def _write_csv(path: Path, header: list[str], rows: Any) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def _plot_curve(curve: list[tuple[int, int, float]], path: Path, title: str) -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 3))
    if curve:
        xs = [t for _, t, _ in curve]
        ys = [r for _, _, r in curve]
        k = max(1, len(ys) // 20)
        smooth = [sum(ys[max(0, i - k): i + 1]) / len(ys[max(0, i - k): i + 1]) for i in range(len(ys))]
        ax.plot(xs, ys, ".", alpha=0.3, label="episode return")
        ax.plot(xs, smooth, "-", label="moving mean")
        ax.legend(loc="lower right")
    ax.set_xlabel("timestep")
    ax.set_ylabel("episode return")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _plot_evaluations(evaluations: list[dict[str, Any]], path: Path, title: str) -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 3))
    xs = [e["steps"] for e in evaluations]
    ys = [e["win_rate"] for e in evaluations]
    # error bars, not a band: one evaluation (the usual short run) has no band to draw, but has its interval
    err = [[y - e["interval"][0] for y, e in zip(ys, evaluations)],
           [e["interval"][1] - y for y, e in zip(ys, evaluations)]]
    ax.errorbar(xs, ys, yerr=err, fmt="o-", capsize=4, label="win rate (Wilson 95 % interval)")
    if len(xs) == 1:  # a lone point: some room either side of it
        ax.set_xlim(0, 2 * xs[0] or 1)
    ax.set_ylim(0, 1)
    from matplotlib.ticker import PercentFormatter

    ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0, decimals=0))
    ax.set_xlabel("timestep")
    ax.set_ylabel("win rate")
    ax.set_title(title)
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
