"""`trpg-arena train SYSTEM`: the rule system's `ppo` policy, for every encounter and both sides.

1. **Data**: the teacher (the scripted agent unless ``--teacher``) plays itself over the system's
   built-in encounters and procedurally generated ones (`experiments.selfplay.generate`; never the
   held-out ones of ``tests/unseen``). With probability `noise` a side plays a random legal action
   instead, so positions off the teacher's path are seen too; the label of every decision is always the
   teacher's own choice there (what it would have done), in the canonical action layout
   (`trpg_arena.agents.canonical`).
2. **Behaviour cloning**: an MLP (torch, the ``train`` extra) learns the teacher's choice by cross-entropy
   over the legal actions only (the mask), on the decider's canonical observation; ``--rounds`` DAgger
   rounds then label the positions the policy's own play reaches.
3. **PPO** (``--ppo-steps``): MaskablePPO warm-started from the cloned weights in a self-play league
   (`experiments.policy_ppo`); ``--init`` starts this stage from an existing model instead of cloning.
4. **Export**: the weights go to an ``.npz`` that `trpg_arena.agents.learned.ppo` plays in numpy, with a
   model card beside it (data, command, steps, speed, evaluations with Wilson intervals).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from trpg_arena.experiments.policy_ppo import PPOStageArgs
from trpg_arena.experiments.series.sprt import wilson
from trpg_arena.experiments.train import MAX_THREADS, check_side, check_spec
from trpg_arena.rules.core.dice import SEED_MAX

GENERATED = "generated"  # in --data-on: a fresh generated encounter at each of its turns

Layers = list[tuple[np.ndarray, np.ndarray]]


@dataclass
class PolicyTrainArgs:
    """Options of the policy recipe."""

    ruleset: str
    games: int = 400  # self-play games of the teacher (data)
    teacher: str = "scripted"  # the agent spec whose choices are cloned (e.g. `trained`, stronger on some systems)
    generated: float = 0.5  # share of the games on generated encounters (the rest on the built-ins)
    noise: float = 0.15  # chance that a decision is a random legal action (the label stays the script's)
    epochs: int = 10
    rounds: int = 0  # DAgger rounds after the cloning (or from `init`): the policy plays, the teacher labels, refit
    data_on: tuple[str, ...] = ()  # the data's games on these encounters in turn (default: built-ins and generated)
    hidden: tuple[int, ...] = (256, 128)
    batch: int = 256
    lr: float = 1e-3
    seed: int = 0
    eval_games: int = 40  # per evaluation: each built-in duel and skirmish against scripted and random
    out: Path | None = None  # where the .npz and its card go (default: the shipped model's place)
    threads: int = 1
    init: Path | None = None  # start from this model (skip the cloning), e.g. to run the PPO stage on a shipped one
    ppo: PPOStageArgs | None = None  # the PPO stage after the cloning (`experiments.policy_ppo`); None: none
    ppo_encounters: int = 48  # encounters drawn for the PPO stage (the built-ins and generated ones, as for the data)
    ppo_on: tuple[str, ...] = ()  # the PPO stage's encounters by name instead (e.g. a duel the policy plays badly)
    extra: dict[str, Any] = field(default_factory=dict)

    def check(self) -> None:
        """Refuse bad values with one line naming the option."""
        if self.rounds < 0:
            raise ValueError("--rounds must be 0 or more")
        if not 0 <= self.seed <= SEED_MAX:
            raise ValueError(f"--seed must lie between 0 and {SEED_MAX}, got {self.seed}")
        for name in ("games", "epochs", "batch", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1")
        if self.threads > MAX_THREADS:  # torch crashes on absurd counts
            raise ValueError(f"--threads must lie between 1 and {MAX_THREADS}, got {self.threads}")
        if self.eval_games < 0:
            raise ValueError("--eval-games must be 0 or more")
        for name in ("generated", "noise"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"--{name} must lie between 0 and 1")
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ValueError("--hidden must be one or more layer sizes of at least 1")
        if self.init is not None and not Path(self.init).is_file():
            raise ValueError(f"--init: no model file at '{self.init}'")
        if self.init is not None and self.ppo is None and not self.rounds:
            raise ValueError("--init continues a model with DAgger rounds or the PPO stage: give --rounds or "
                             "--ppo-steps too")
        if self.ppo is not None:
            self.ppo.check()
        # A name that does not load, of another system or beyond the layout, and a bad teacher: their one-line
        # errors before any work, and before the CLI makes the run's folder (a refused run leaves nothing behind).
        if self.data_on:
            ppo_encounters(self.ruleset, tuple(n for n in self.data_on if n != GENERATED), "--data-on")
        if self.ppo is not None:
            self._check_ppo_names(self.ppo)
        if self.init is None:
            from trpg_arena.agents import make_agent

            make_agent(self.teacher, self.ruleset, seed=0)

    def _check_ppo_names(self, ppo: PPOStageArgs) -> None:
        """The PPO stage's encounters, anchors and side: refused now, not after the cloning (or its steps)."""
        if self.ppo_on:
            ppo_encounters(self.ruleset, tuple(dict.fromkeys(n for n in self.ppo_on if n != GENERATED)))
        for anchor in ppo.anchors:
            check_spec("--anchors", anchor, self.ruleset)
        if ppo.side != "both":  # the encounters are drawn only to be asked: a side each of them must have
            check_side(ppo.side, ppo_stage_encounters(self))


@dataclass
class Decisions:
    """Labelled decisions: the decider's observation, its legal canonical indices and the scripted choice."""

    obs: list[np.ndarray] = field(default_factory=list)
    legal: list[np.ndarray] = field(default_factory=list)
    label: list[int] = field(default_factory=list)  # a canonical index (one of `legal`)

    def __len__(self) -> int:
        return len(self.label)


def policy_run_folder(out: Path, ruleset: str, seed: int) -> Path:
    """A new folder ``<out>/<system>-policy-s<seed>-<time>`` (a suffix when one exists already)."""
    from datetime import datetime

    from trpg_arena.experiments.series.folders import fresh_folder

    return fresh_folder(out / f"{ruleset}-policy-s{seed}-{datetime.now().strftime('%Y%m%d-%H%M%S')}")


def fresh_generated(ruleset: str, seed: int) -> Iterator[Any]:
    """Generated encounters of `ruleset` from `seed`, one after another, skipping those the layout cannot hold."""
    from trpg_arena.agents.canonical import CanonicalCodec
    from trpg_arena.experiments.selfplay.generate import generate
    from trpg_arena.rules import TrpgArenaError, get_ruleset

    system = get_ruleset(ruleset)
    g = 0
    while True:
        g += 1
        try:
            enc = generate(ruleset, seed * 100_000 + g)
            CanonicalCodec.of(system, enc)
        except (TrpgArenaError, ValueError):  # beyond the canonical layout: no policy plays it
            continue
        yield enc


def training_encounters(ruleset: str, games: int, generated: float, seed: int) -> list[Any]:
    """One encounter per game: the built-ins in turn, and a fresh generated one for the `generated` share."""
    from trpg_arena.agents.canonical import CanonicalCodec
    from trpg_arena.rules import TrpgArenaError, builtin_encounters, get_ruleset, load_encounter

    system = get_ruleset(ruleset)
    builtins = []
    for name in builtin_encounters(system):
        enc = load_encounter(name)
        try:
            CanonicalCodec.of(system, enc)
        except TrpgArenaError:  # beyond the layout's limits: no policy plays it, so nothing to learn from
            continue
        builtins.append(enc)
    rng = np.random.default_rng(seed)
    fresh = fresh_generated(ruleset, seed)
    out: list[Any] = []
    for i in range(games):
        if builtins and rng.random() >= generated:
            out.append(builtins[i % len(builtins)])
        else:
            out.append(next(fresh))
    return out


def ppo_encounters(ruleset: str, names: tuple[str, ...], option: str = "--ppo-on") -> list[Any]:
    """The encounters named for the PPO stage (``--ppo-on``) or the data (``--data-on``).

    Each must be of ``ruleset`` and within its layout's limits (else a one-line error naming ``option``).
    """
    from trpg_arena.agents.canonical import CanonicalCodec
    from trpg_arena.rules import get_ruleset, load_encounter

    out = []
    for name in names:
        enc = load_encounter(name)
        if enc.ruleset != ruleset:
            raise ValueError(f"{option}: {name} is a {enc.ruleset} encounter, not {ruleset}")
        CanonicalCodec.of(get_ruleset(ruleset), enc)  # beyond the layout's limits: its one-line error
        out.append(enc)
    return out


GENERATED_PER_NAME = 8  # encounters a `generated` entry of --ppo-on stands for (each named one is listed as often)


def ppo_stage_encounters(args: PolicyTrainArgs) -> list[Any]:
    """The PPO stage's encounters: those of ``--ppo-on`` (`ppo_mix`), else built-ins and generated ones, each once."""
    if args.ppo_on:
        return ppo_mix(args.ruleset, args.ppo_on, args.seed + 7_919)
    encounters = training_encounters(args.ruleset, args.ppo_encounters, args.generated, args.seed + 7_919)
    return list({id(e): e for e in encounters}.values())


def ppo_mix(ruleset: str, names: tuple[str, ...], seed: int) -> list[Any]:
    """The PPO stage's encounters for ``--ppo-on``, one drawn per episode.

    Without ``generated`` these are the named encounters, a name listed twice drawn twice as often. Each
    ``generated`` entry stands for `GENERATED_PER_NAME` fresh generated encounters and each named entry is
    listed as many times, so every entry keeps the share of the episodes the list gives it while the
    generated share is spread over several layouts rather than one.
    """
    named = tuple(dict.fromkeys(n for n in names if n != GENERATED))  # each file loaded once
    loaded = dict(zip(named, ppo_encounters(ruleset, named), strict=True))
    per_entry = GENERATED_PER_NAME if GENERATED in names else 1
    fresh = fresh_generated(ruleset, seed)  # lazy: nothing is generated unless the list asks
    out: list[Any] = []
    for name in names:
        out.extend(next(fresh) if name == GENERATED else loaded[name] for _ in range(per_entry))
    return out


def data_encounters(args: PolicyTrainArgs, seed: int) -> list[Any]:
    """One encounter per data game: those of ``--data-on`` in turn, else the built-ins and generated ones.

    Each named encounter comes twice in a row: a DAgger round puts the policy on the side ``game % 2``, so with
    an even number of names taken one game each, every encounter would always give the policy the same side.
    The name ``generated`` stands for a fresh generated encounter at each of its turns (the same one for its
    two games), so named encounters and new layouts mix in the share the list gives them.
    """
    if not args.data_on:
        return training_encounters(args.ruleset, args.games, args.generated, seed)
    names = tuple(n for n in args.data_on if n != GENERATED)
    named = dict(zip(names, ppo_encounters(args.ruleset, names, "--data-on"), strict=True))
    fresh = fresh_generated(args.ruleset, seed)
    out: list[Any] = []
    for i in range(args.games):
        name = args.data_on[(i // 2) % len(args.data_on)]
        if name != GENERATED:
            out.append(named[name])
        elif i % 2 == 0:
            out.append(next(fresh))
        else:  # the second game of a generated pair: the same encounter, the policy on the other side
            out.append(out[-1])
    return out


def collect(ruleset: str, encounters: list[Any], noise: float, seed: int,
            progress: Callable[[int], None] | None = None, player: Any = None, teacher: str = "scripted",
            ) -> Decisions:
    """The scripted agent's decisions over one game per encounter (see the module docstring).

    With a `player` (a `PolicyNet`), that policy plays one side of each game (the sides alternate) and the
    scripted agent the other, and every decision is still labelled with the scripted choice (DAgger: the
    policy learns to recover from the positions its own mistakes lead to).
    """
    from trpg_arena.agents import make_agent
    from trpg_arena.agents.canonical import CanonicalCodec
    from trpg_arena.rules import Combat, TrpgArenaError

    data = Decisions()
    rng = np.random.default_rng(seed)
    for g, enc in enumerate(encounters):
        combat = Combat(enc, seed=seed * 1_000_003 + g, record=False)
        codec = CanonicalCodec.for_combat(combat)
        script = {side: make_agent(teacher, ruleset, seed=int(rng.integers(2**31))) for side in combat.sides}
        learner = combat.sides[g % 2] if player is not None else None
        while not combat.over:
            d = combat.decision
            assert d is not None  # a combat that is not over has a decision open
            side = d.side if d.side is not None else combat.side_of(d.actor)
            legal = combat.legal_view()
            choice = script[side].act(combat)
            if len(legal) > 1:
                try:
                    index = codec.legal_indices(combat)
                    obs = codec.observe(combat)
                    data.obs.append(obs)
                    data.legal.append(np.array(index, dtype=np.int32))
                    data.label.append(int(index[legal.index(choice)]))
                    if side == learner:
                        choice = legal[int(np.argmax(player.legal_logits(obs, index)))]
                except TrpgArenaError:  # a decision beyond the layout's limits: not learned from
                    pass
            if noise and rng.random() < noise:
                choice = legal[int(rng.integers(len(legal)))]
            combat.act(choice)
        if progress is not None:
            progress(g + 1)
    return data


def games_progress(log: Callable[[str], None], what: str, total: int, every: float = 60.0,
                   ) -> Callable[[int], None]:
    """A `collect` progress callback: a line at most every `every` seconds and at the last game.

    A slow teacher can take most of an hour over its games; the lines say that work goes on and about how long
    it has left (from the mean time per game so far).
    """
    start = last = time.perf_counter()

    def report(done: int) -> None:
        nonlocal last
        now = time.perf_counter()
        if done < total and now - last < every:
            return
        last = now
        left = (now - start) / done * (total - done)
        log(f"{what}: {done} of {total} games, {now - start:.0f} s" + (f", about {left:.0f} s left" if left else ""))

    return report


def fit(data: Decisions, n_actions: int, args: PolicyTrainArgs, log: Callable[[str], None],
        start: Layers | None = None) -> tuple[Layers, dict[str, float]]:
    """Behaviour cloning: masked cross-entropy on 90 % of the decisions; accuracy on the held-out 10 %.

    With `start` the network begins from those layers (a model being refined) instead of fresh weights.
    """
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    n = len(data)
    order = np.random.default_rng(args.seed).permutation(n)
    cut = max(1, n // 10)
    held, train = order[:cut], order[cut:]
    obs = torch.tensor(np.stack(data.obs))
    label = torch.tensor(np.array(data.label, dtype=np.int64))
    sizes = [obs.shape[1], *(w.shape[1] for w, _ in start[:-1])] if start else [obs.shape[1], *args.hidden]
    sizes.append(n_actions)
    mods: list[torch.nn.Module] = []
    for i in range(len(sizes) - 1):
        mods.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            mods.append(torch.nn.Tanh())
    net = torch.nn.Sequential(*mods)
    if start:
        with torch.no_grad():
            for m, (w, b) in zip([m for m in net if isinstance(m, torch.nn.Linear)], start, strict=True):
                m.weight.copy_(torch.from_numpy(np.asarray(w, dtype=np.float32).T))
                m.bias.copy_(torch.from_numpy(np.asarray(b, dtype=np.float32)))
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)

    def masks(rows: np.ndarray) -> torch.Tensor:
        m = torch.full((len(rows), n_actions), float("-inf"))
        for k, r in enumerate(rows):
            m[k, torch.from_numpy(data.legal[r].astype(np.int64))] = 0.0
        return m

    def accuracy(rows: np.ndarray) -> tuple[float, float]:
        with torch.no_grad():
            z = net(obs[rows]) + masks(rows)
            loss = torch.nn.functional.cross_entropy(z, label[rows]).item()
            return float((z.argmax(1) == label[rows]).float().mean()), loss

    rng = np.random.default_rng(args.seed + 1)
    for epoch in range(args.epochs):
        rng.shuffle(train)
        for s in range(0, len(train), args.batch):
            rows = train[s:s + args.batch]
            z = net(obs[rows]) + masks(rows)
            loss = torch.nn.functional.cross_entropy(z, label[rows])
            opt.zero_grad()
            loss.backward()
            opt.step()
        acc, held_loss = accuracy(held)
        log(f"epoch {epoch + 1}/{args.epochs}: held-out agreement with the teacher's choice {acc:.1%}, "
            f"loss {held_loss:.3f}")
    linear = [m for m in net if isinstance(m, torch.nn.Linear)]
    layers = [(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()) for m in linear]
    acc, held_loss = accuracy(held)
    return layers, {"held_out_agreement": round(acc, 4), "held_out_loss": round(held_loss, 4),
                    "train_decisions": len(train), "held_out_decisions": len(held)}


def evaluate_policy(ruleset: str, model: Path, encounter: str, opponent: str, games: int, seed: int = 50_000,
                    ) -> dict[str, Any]:
    """`ppo` (this model) against `opponent` on `encounter`, sides swapped every game: decided share and interval."""
    from trpg_arena.experiments.series import SeriesSpec, run_series
    from trpg_arena.rules import load_encounter

    me = f"ppo:model={model}"
    sides = load_encounter(encounter).sides()
    spec = SeriesSpec.build(encounter, [me, opponent], games, first_seed=seed, swap=True)
    wins = losses = draws = 0
    for record in run_series(spec, workers=1):
        if record.result not in sides:
            draws += 1
        elif record.agents[sides.index(record.result)] == me:
            wins += 1
        else:
            losses += 1
    decided = wins + losses
    low, high = wilson(wins, decided) if decided else (0.0, 1.0)
    return {"encounter": encounter, "opponent": opponent, "games": games, "wins": wins, "losses": losses,
            "draws": draws, "decided_share": round(wins / decided, 4) if decided else None,
            "interval": [round(low, 4), round(high, 4)]}


def dagger_round(args: PolicyTrainArgs, layers: Layers, fingerprint: str, r: int, data: Decisions,
                 log: Callable[[str], None]) -> Decisions:
    """DAgger round `r`: the policy of `layers` plays one side of fresh games, the teacher labels every decision.

    The round's decisions are added to `data` and returned (a refit then reads them all).
    """
    from trpg_arena.agents.learned.ppo import PolicyNet

    player = PolicyNet(args.ruleset, fingerprint, tuple(layers), {})
    games = data_encounters(args, args.seed + r + 1)
    more = collect(args.ruleset, games, args.noise, args.seed + r + 1, player=player, teacher=args.teacher,
                   progress=games_progress(log, f"DAgger round {r + 1}/{args.rounds}", len(games)))
    data.obs += more.obs
    data.legal += more.legal
    data.label += more.label
    return more


def clone(args: PolicyTrainArgs, fingerprint: str, n_actions: int, log: Callable[[str], None]) -> tuple[
        Layers, dict[str, Any]]:
    """Collect the teacher's decisions, clone them, and run the DAgger rounds; the layers and what the card says."""
    start = time.perf_counter()
    encounters = data_encounters(args, args.seed)
    names = sorted({e.encounter for e in encounters if not e.encounter.startswith("generated_")})
    generated = sum(e.encounter.startswith("generated_") for e in encounters)
    log(f"{args.ruleset}: {args.games} self-play games of {args.teacher} ({generated} on generated encounters, the "
        f"rest on {', '.join(names) or 'none'}), noise {args.noise:g}")
    data = collect(args.ruleset, encounters, args.noise, args.seed, teacher=args.teacher,
                   progress=games_progress(log, f"self-play of {args.teacher}", len(encounters)))
    collected = time.perf_counter() - start
    log(f"{len(data):,} decisions in {collected:.0f} s ({len(data) / max(collected, 1e-9):,.0f}/s); cloning")
    layers, fitted = fit(data, n_actions, args, log)
    for r in range(args.rounds):
        more = dagger_round(args, layers, fingerprint, r, data, log)
        log(f"DAgger round {r + 1}/{args.rounds}: {len(more):,} decisions with the policy on one side; refitting "
            f"on {len(data):,}")
        layers, fitted = fit(data, n_actions, args, log)
    recipe = f"behaviour cloning of the {args.teacher} agent (masked cross-entropy)"
    if args.rounds:
        recipe += (f", then {args.rounds} DAgger round{'s' if args.rounds > 1 else ''} (the policy plays, the "
                   "teacher labels)")
    return layers, {"recipe": recipe, "decisions": len(data), "generated_games": generated, "data_encounters": names,
                    "collect_seconds": round(collected, 1),
                    "clone_seconds": round(time.perf_counter() - start, 1),
                    "decisions_per_second": round(len(data) / max(collected, 1e-9), 1), **fitted}


def refine(args: PolicyTrainArgs, layers: Layers, fingerprint: str, n_actions: int, log: Callable[[str], None],
           ) -> tuple[Layers, dict[str, Any]]:
    """``--init MODEL --rounds N``: DAgger rounds from an existing policy, each refit starting from the last weights.

    In each round the policy plays one side of ``--games`` fresh games against the teacher (the sides alternate),
    every decision is labelled with the teacher's choice, and the network is refitted on all the rounds' decisions
    so far, from where it stands: the model keeps what it knew and moves toward the teacher where its own play
    leads it.
    """
    start = time.perf_counter()
    data = Decisions()
    collected = 0.0
    fitted: dict[str, Any] = {}
    for r in range(args.rounds):
        began = time.perf_counter()
        more = dagger_round(args, layers, fingerprint, r, data, log)
        collected += time.perf_counter() - began
        log(f"DAgger round {r + 1}/{args.rounds} from the model: {len(more):,} decisions labelled by {args.teacher} "
            f"with the policy on one side; refitting on {len(data):,}")
        layers, fitted = fit(data, n_actions, args, log, start=layers)
    encounters = ", ".join(args.data_on) or "the built-ins and generated encounters"
    return layers, {"dagger": {"teacher": args.teacher, "rounds": args.rounds, "games": args.games,
                               "encounters": encounters, "epochs": args.epochs, "decisions": len(data),
                               "collect_seconds": round(collected, 1),
                               "seconds": round(time.perf_counter() - start, 1), **fitted}}


def command_line(args: PolicyTrainArgs) -> str:
    """The ``trpg-arena train SYSTEM`` command that reproduces a run."""
    words = [f"trpg-arena train {args.ruleset}"]
    if args.init is not None:
        words.append(f"--init {args.init}")
        if args.rounds:
            words.append(f"--rounds {args.rounds} --games {args.games} --epochs {args.epochs} --teacher {args.teacher}")
    else:
        words.append(f"--games {args.games} --epochs {args.epochs} --rounds {args.rounds}")
        if args.teacher != "scripted":
            words.append(f"--teacher {args.teacher}")
    if args.data_on:
        words.append(f"--data-on {','.join(args.data_on)}")
    if args.ppo is not None:
        p = args.ppo
        words.append(f"--ppo-steps {p.steps} --value-warmup {p.value_warmup} --ppo-lr {p.lr:g} --anchors "
                     f"{','.join(p.anchors)} --latest {p.latest:g} --snapshot-every {p.snapshot_every} "
                     f"--shaping {p.shaping:g} --n-steps {p.n_steps} --batch-size {p.batch_size}")
        if args.ppo_on:
            words.append(f"--ppo-on {','.join(args.ppo_on)}")
        if p.side != "both":
            words.append(f"--side {p.side}")
        if p.draw_penalty:
            words.append(f"--draw-penalty {p.draw_penalty:g}")
    words.append(f"--seed {args.seed} --eval-games {args.eval_games}")
    return " ".join(words)


def league_opponents(ppo: PPOStageArgs, steps: int) -> str:
    """Who the PPO stage's learner met, in the card's words.

    Its own snapshots only where it took any and played them (`experiments.league`: the latest with
    probability `latest`, else older ones and anchors).
    """
    anchors = ", ".join(ppo.anchors)
    if steps <= ppo.snapshot_every:  # no snapshot was written before the end: the anchors played every episode
        return anchors
    if ppo.latest == 0.0:
        return f"a league of its earlier snapshots and {anchors}"
    return f"a self-play league (the latest snapshot in {ppo.latest:.0%} of episodes, else earlier ones and {anchors})"


def train_policy(args: PolicyTrainArgs, log: Callable[[str], None]) -> dict[str, Any]:
    """Clone (or start from `init`), run the PPO stage if asked, export, evaluate; return the model card.

    The card is also written beside the model (``.json`` and ``.md``).
    """
    from trpg_arena.agents.learned.ppo import PolicyNet, layout_fingerprint, load_policy, policy_path
    from trpg_arena.rules import get_ruleset

    get_ruleset(args.ruleset)  # an unknown system: the registry's one-line error
    args.check()
    stage_encounters = ppo_stage_encounters(args) if args.ppo is not None else []  # the named ones load first
    fingerprint, _, n_actions = layout_fingerprint(args.ruleset)
    start = time.perf_counter()
    out = Path(args.out) if args.out is not None else policy_path(args.ruleset)
    if args.init is not None:  # a model to continue from: its card's data and recipe carry over
        init = load_policy(args.ruleset, args.init)
        layers: Layers = [(w.copy(), b.copy()) for w, b in init.layers]
        cloned = {k: v for k, v in init.meta.items() if k not in ("args", "ppo", "command", "seconds", "recipe")}
        # A chain of --init runs: the card keeps the data of the cloning at its root (its args), every command
        # since that root, and the DAgger rounds of the runs before, not just those of the model it starts from.
        parent = init.meta.get("init_command")
        earlier = init.meta.get("init_commands") or ([parent] if parent else [])
        cloned.update({"recipe": init.meta.get("recipe", "a model"), "init": str(args.init),
                       "init_command": init.meta.get("command"),
                       "init_commands": [*earlier, init.meta.get("command")],
                       "init_args": init.meta.get("init_args") or init.meta.get("args", {})})
        if init.meta.get("dagger"):
            # the starting model's rounds move to the list of earlier ones; left under "dagger" as well, a run
            # without rounds of its own would list the last of them twice on its card
            cloned["dagger_before"] = [*init.meta.get("dagger_before", []), cloned.pop("dagger")]
        if "ppo" in init.meta:  # the recipe names that PPO stage, so the card keeps its steps, time and speed
            cloned["init_ppo"] = init.meta["ppo"]
        log(f"starting from {args.init} ({cloned['recipe']})")
        if args.rounds:
            layers, refined = refine(args, layers, fingerprint, n_actions, log)
            d = refined["dagger"]
            cloned.update(refined)
            cloned["recipe"] += (f", then {d['rounds']} DAgger round{'s' if d['rounds'] > 1 else ''} from those "
                                 f"weights labelled by the {d['teacher']} agent ({d['games']} games a round on "
                                 f"{d['encounters']}, the policy on one side)")
    else:
        layers, cloned = clone(args, fingerprint, n_actions, log)
    recipe = cloned["recipe"]
    ppo_record = None
    if args.ppo is not None:
        from trpg_arena.experiments.policy_ppo import ppo_stage

        layers, ppo_record = ppo_stage(args.ruleset, fingerprint, layers, stage_encounters, out.parent / "pool",
                                       args.ppo, log)
        ppo_record["encounters"] = sorted({e.encounter for e in stage_encounters})
        recipe += (f", then {ppo_record['steps']:,} MaskablePPO steps warm-started from those weights against "
                   f"{league_opponents(args.ppo, ppo_record['steps'])}"
                   + (f" on {', '.join(args.ppo_on)}" if args.ppo_on else "")
                   + (f", as {args.ppo.side} only" if args.ppo.side != "both" else ""))
    seconds = time.perf_counter() - start
    meta = {**cloned, "ruleset": args.ruleset, "recipe": recipe, "command": command_line(args),
            "args": _plain(asdict(args)), "seconds": round(seconds, 1),
            "cpus": os.cpu_count()}  # the machine the run had, for the card's speed figures (`threads` in args)
    if ppo_record is not None:
        meta["ppo"] = ppo_record
    net = PolicyNet(args.ruleset, fingerprint, tuple(layers), meta)
    net.save(out)
    evaluations = []
    if args.eval_games:
        system = get_ruleset(args.ruleset)
        from trpg_arena.rules import builtin_encounters

        for name in builtin_encounters(system):
            if name.split("/", 1)[1] not in ("duel", "skirmish"):
                continue
            for opponent in ("scripted", "random"):
                e = evaluate_policy(args.ruleset, out, name, opponent, args.eval_games)
                log(f"ppo vs {opponent} on {name}: {e['wins']}-{e['losses']} ({e['draws']} draws), "
                    f"{_pct(e['decided_share'])} of decided games [{_pct(e['interval'][0])}, {_pct(e['interval'][1])}]")
                evaluations.append(e)
    card = {**meta, "size_bytes": out.stat().st_size, "evaluations": evaluations}
    out.with_suffix(".json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(card_markdown(card), encoding="utf-8")
    return card


def _plain(value: Any) -> Any:
    """A JSON-ready copy of the arguments (paths as text, nested dataclasses as dicts)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return str(value) if isinstance(value, Path) else value


def card_markdown(card: dict[str, Any]) -> str:
    """The model card a reader opens: what the policy learned from, how to rebuild it, how it plays."""
    a = card.get("init_args") or card["args"]
    teacher = a.get("teacher", "scripted")
    lines = [f"# The {card['ruleset']} `ppo` policy", "",
             f"- **Recipe**: {card['recipe']}: an MLP {a['hidden']} (tanh) from the canonical observation to one "
             "logit per canonical action, the mask leaving the legal actions only; weights float16 in numpy.",
             f"- **Data**: {a['games']} games of the {teacher} agent against itself, {_data_mix(card, a)} (never the "
             f"held-out `tests/unseen`), a random legal action "
             f"{a['noise']:.0%} of the time (the label stays the {teacher} choice): {card['decisions']:,} decisions "
             f"({card['train_decisions']:,} to train, {card['held_out_decisions']:,} held out).",
             f"- **Command**: `{card['command']}` (writes a run folder; the shipped file is its "
             f"`ppo-{card['ruleset']}.npz`)" + _init_commands(card),
             f"- **Steps and speed**: {_plural(a['epochs'], 'epoch')} over the decisions; collecting "
             f"{card['collect_seconds']:g} s ({card['decisions_per_second']:,.0f} decisions/s)"
             + (f", {card['seconds']:g} s in all" if not card.get("init") else "")
             + ". " + _ppo_line(card.get("ppo"), card.get("init_ppo")) + _machine_line(card),
             f"- **Fit of the cloning**: held-out agreement with the {teacher} choice "
             f"{card['held_out_agreement']:.1%}, cross-entropy {card['held_out_loss']:.3f}.",
             *(line for d in [*card.get("dagger_before", []), card.get("dagger")] for line in _dagger_lines(d)),
             f"- **Size**: {card['size_bytes'] / 1e6:.2f} MB.", "",
             "## Evaluations", "",
             "Sides swapped every game; the share is of decided games, with its Wilson 95 % interval."
             + (" Measured after the build with `trpg-arena evaluate ENC --agents ppo,OPPONENT --games N --workers 1` "
                "(seeds from 0)." if any("command" in e for e in card["evaluations"]) else ""), "",
             "| encounter | opponent | games | won | lost | drawn | share of decided | interval |",
             "|---|---|---|---|---|---|---|---|"]
    for e in card["evaluations"]:
        lines.append(f"| {e['encounter']} | {e['opponent']} | {e['games']} | {e['wins']} | {e['losses']} | "
                     f"{e['draws']} | {_pct(e['decided_share'])} | [{_pct(e['interval'][0])}, "
                     f"{_pct(e['interval'][1])}] |")
    return "\n".join(lines) + "\n"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _data_mix(card: dict[str, Any], a: dict[str, Any]) -> str:
    """Where the data's games were played: the count on generated encounters, as played, and the others' names.

    A card written before the count was kept gives the share each game was drawn with instead.
    """
    if "generated_games" not in card:
        if a.get("data_on"):
            return f"on {', '.join(a['data_on'])} in turn"
        return f"each on a generated encounter with chance {a['generated']:.0%}, else on a built-in"
    generated, names = card["generated_games"], ", ".join(card["data_encounters"])
    if generated == 0:
        return f"all on {names}"
    if not names:
        return "all on generated encounters"
    return f"{generated:,} of them on generated encounters and the rest on {names}"


def _machine_line(card: dict[str, Any]) -> str:
    """What this run had to work with: torch threads and the machine's CPUs (absent from older cards)."""
    threads = card["args"].get("threads")
    if threads is None or card.get("cpus") is None:
        return ""
    return f" This run: {_plural(threads, 'torch thread')} on a machine of {_plural(card['cpus'], 'CPU')}."


def _init_commands(card: dict[str, Any]) -> str:
    """The end of the card's command line: the commands that made the model it starts from, oldest first."""
    commands = card.get("init_commands") or ([card["init_command"]] if card.get("init_command") else [])
    if not commands:
        return "."
    return "; the model it starts from was made by " + ", then ".join(f"`{c}`" for c in commands) + "."


def _dagger_lines(dagger: dict[str, Any] | None) -> list[str]:
    """The card's line on DAgger rounds run from an existing model (``--init MODEL --rounds N``), if any."""
    if not dagger:
        return []
    return [f"- **DAgger from the model**: {dagger['rounds']} round(s) of {dagger['games']} games on "
            f"{dagger['encounters']}, the policy on one side and the {dagger['teacher']} agent on the other, every "
            f"decision labelled with the {dagger['teacher']} choice: {dagger['decisions']:,} decisions, collected in "
            f"{dagger['collect_seconds']:g} s, {dagger['seconds']:g} s in all; {dagger['epochs']} epochs per refit "
            f"from the current weights, held-out agreement {dagger['held_out_agreement']:.1%}."]


def _ppo_line(ppo: dict[str, Any] | None, init_ppo: dict[str, Any] | None = None) -> str:
    """The card's PPO figures: this run's stage, else the one of the model it started from, else none."""
    if not ppo and not init_ppo:
        return "No PPO steps after the cloning."
    label = "PPO" if ppo else "PPO (of the model it starts from)"
    ppo = ppo or init_ppo
    assert ppo is not None  # one of the two is given (checked above)
    s = ppo["settings"]
    return (f"{label}: {ppo['steps']:,} steps ({ppo['episodes']:,} episodes) in {ppo['seconds']:g} s, "
            f"{ppo['fps']:,.0f} steps/s, learning rate {s['lr']:g}, clip {s['clip']:g}, KL target {s['target_kl']:g}, "
            f"the first {s['value_warmup']:,} steps training the value alone; {ppo['snapshots']} league snapshots.")


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f} %"
