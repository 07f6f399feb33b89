"""`trpg-arena train-value SYSTEM`: rebuild a system's learned value from nothing, with its model card.

Generation 0 is the scripted agent against itself with random moves mixed in, over the system's
built-in encounters and (`generated`) procedurally generated ones (`trpg-arena selfplay`'s schedule);
each later generation adds games of the `trained` agent (on the model fitted so far) against the
scripted one, on the same mix, and the value is refitted on every generation's positions together.
Everything the model is fitted on is made by the command itself, so the card's command rebuilds it.
The model, its card (``.md``, with the data, the command, held-out log loss and Brier score against
the hand-written value) and its calibration plot (``.png``) are written side by side.
"""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trpg_arena.agents.learned.model import MODELS
from trpg_arena.experiments.selfplay.value_data import generate
from trpg_arena.experiments.selfplay.value_fit import (
    FitConfig,
    calibration_plot,
    evaluate_value,
    fit_value,
    load_positions,
    read_data,
    split_by_game,
)
from trpg_arena.experiments.series.folders import run_folder
from trpg_arena.rules import builtin_encounters

# the generation agent as the shipped models were built with it: `trained:easy` as it stood before `through`
# became every preset's default and before the presets' re-cut of 6 December, spelled out value by value so
# the documented command still rebuilds them from the same games (tests/agents/test_trained_strength_index.py);
# without play-outs, since a system's own `easy` may have them (reincarnator's plays out its departures)
GENERATION_AGENT = "trained:easy:candidates=4:samples=4:temperature=0.1:guard=0.2:through=0:playouts=0:verify=0:depth=0"


@dataclass
class ValueTrainArgs:
    """What `train-value` does (each field is a CLI option)."""

    ruleset: str
    games: int = 3000  # generation 0: scripted self-play games over the encounters
    generated: int = 0  # more generation-0 games on generated encounters (one block in four a built-in)
    generations: int = 0  # later generations: games of `trained` (the model so far) against scripted
    generation_games: int = 400
    noise: float = 0.1
    keep: float = 0.25  # share of the decisions recorded
    seed: int = 0
    workers: int = 2
    held_out: float = 0.15
    encounters: Sequence[str] = field(default_factory=tuple)  # default: the system's built-ins
    extra: Sequence[Path] = field(default_factory=tuple)  # earlier generations' data files, pooled with these
    data: Path = Path("runs/selfplay")  # each run's data in a new <UTC time>-<system> folder under it
    out: Path = MODELS
    fit: FitConfig = field(default_factory=FitConfig)
    draw: float = 0.0  # the target of a drawn game's positions: 0 learns P(win), 0.5 the expected score


def default_encounters(ruleset: str) -> list[str]:
    """The built-in encounters of a rule system (``moonlit/duel``, ...)."""
    from trpg_arena.rules import get_ruleset

    return builtin_encounters(get_ruleset(ruleset))


def command_line(args: ValueTrainArgs) -> str:
    """The command that reproduces a run (for the model card): every option that differs from its default.

    ``--out`` above all: without it the command as written rebuilds the package's shipped model in place.
    ``--force`` is left out, so the command run again beside the model refuses to replace it unless asked.
    """
    defaults = ValueTrainArgs(args.ruleset)
    parts = ["trpg-arena", "train-value", args.ruleset, "--games", str(args.games), "--seed", str(args.seed),
             "--noise", str(args.noise), "--keep", str(args.keep), "--generations", str(args.generations)]
    if args.generated:
        parts += ["--generated", str(args.generated)]
    if args.draw:
        parts += ["--draw", str(args.draw)]
    if args.fit.epochs != FitConfig().epochs:
        parts += ["--epochs", str(args.fit.epochs)]
    if args.generations:
        parts += ["--generation-games", str(args.generation_games)]
    if args.encounters:
        parts += ["--encounters", ",".join(args.encounters)]
    for path in args.extra:
        parts += ["--extra", str(path)]
    if args.workers != defaults.workers:
        parts += ["--workers", str(args.workers)]
    if args.data != defaults.data:
        parts += ["--data", str(args.data)]
    if args.out != defaults.out:
        parts += ["--out", str(args.out)]
    return " ".join(shlex.quote(p) for p in parts)


def train_value(args: ValueTrainArgs, log: Any = print) -> dict[str, Any]:
    """Generate the data, fit the value over every generation, write model, card and plot; the card's data."""
    started = time.perf_counter()
    encounters = list(args.encounters) or default_encounters(args.ruleset)
    folder = run_folder(args.data, args.ruleset)  # a new one each run: an earlier run's data stays
    log(f"self-play data in {folder}")
    files: list[Path] = []
    generations: list[dict[str, Any]] = []
    gen0 = folder / "gen0.npz"
    log(f"generation 0: {args.games} games of scripted self-play ({args.noise:.0%} random moves) on "
        f"{', '.join(encounters)}")
    generations.append({"generation": 0, "agents": ["scripted"], "noise": args.noise,
                        **generate(args.ruleset, encounters, args.games, args.seed, gen0, ("scripted",), args.noise,
                                   args.workers, keep=args.keep)})
    files.append(gen0)
    if args.generated:
        log(f"generation 0: {args.generated} more games on generated encounters")
        generations.append({"generation": 0, "agents": ["scripted"], "noise": args.noise, "encounters": "generated",
                            **_generated(args, ("scripted", "scripted"), args.noise, folder / "gen0-generated.npz",
                                         args.generated, args.seed + 500_000)})
        files.append(folder / "gen0-generated.npz")
    files += [Path(p) for p in args.extra]
    args.out.mkdir(parents=True, exist_ok=True)
    model_file = args.out / f"{args.ruleset}.npz"
    model, train, test = _fit(files, args)
    for g in range(1, args.generations + 1):
        staged = folder / f"gen{g - 1}-model.npz"
        model.save(staged)
        path = folder / f"gen{g}.npz"
        lineup = (f"{GENERATION_AGENT}:model={staged}", "scripted")
        log(f"generation {g}: {args.generation_games} games of {lineup[0]} against scripted")
        generations.append({"generation": g, "agents": list(lineup), "noise": 0.0,
                            **generate(args.ruleset, encounters, args.generation_games, args.seed + 1_000_000 * g,
                                       path, lineup, 0.0, args.workers, keep=args.keep)})
        files.append(path)
        if args.generated:
            share = max(1, args.generation_games * args.generated // max(1, args.games))
            generations.append({"generation": g, "agents": list(lineup), "noise": 0.0, "encounters": "generated",
                                **_generated(args, lineup, 0.0, folder / f"gen{g}-generated.npz", share,
                                             args.seed + 500_000 + 1_000_000 * g)})
            files.append(folder / f"gen{g}-generated.npz")
        model, train, test = _fit(files, args)
    scores = evaluate_value(model, train, test)
    plot = args.out / f"{args.ruleset}.png"
    calibration_plot(model, train, test, plot, f"{args.ruleset}: held-out positions ({scores['held_out_games']} "
                                               "games)")
    extras = []
    for path in args.extra:
        import numpy as np

        d = read_data(path)
        extras.append({"file": str(path), "positions": int(len(d["game"])), "games": int(len(np.unique(d["game"]))),
                       "agents": str(d["agents"]) if "agents" in d else "?",
                       "noise": float(d["noise"]) if "noise" in d else None,
                       "encounters": int(len(d["encounter_names"])) if "encounter_names" in d else None})
    card = {"ruleset": args.ruleset, "fingerprint": model.fingerprint, "features": model.size,
            "command": command_line(args), "encounters": encounters, "generations": generations, "extra": extras,
            "fit": model.meta, "held_out": scores, "seconds": round(time.perf_counter() - started, 1)}
    model = type(model)(model.ruleset, model.fingerprint, model.mean, model.scale, model.layers, model.skip,
                        {**model.meta, "command": card["command"]})
    model.save(model_file)
    card["bytes"] = model_file.stat().st_size
    (args.out / f"{args.ruleset}.md").write_text(card_markdown(card), encoding="utf-8")
    (args.out / f"{args.ruleset}.json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    log(f"written {model_file} ({card['bytes']:,} bytes), its card and calibration plot")
    return card


def _generated(args: ValueTrainArgs, lineup: Sequence[str], noise: float, out: Path, games: int,
               seed: int) -> dict[str, Any]:
    """Games on generated encounters (and every fourth block a built-in one), as `trpg-arena selfplay` plays them."""
    from rich.console import Console

    from trpg_arena.experiments.selfplay.run import SelfplayArgs, run_selfplay

    quiet = Console(quiet=True)
    summary = run_selfplay(SelfplayArgs(args.ruleset, games, out, tuple(lineup), noise, args.keep,
                                        ("builtin", "generated"), seed=seed, workers=args.workers), quiet)
    return {"games": summary["games"], "positions": summary["positions"], "seconds": summary["seconds"],
            "encounters_played": summary["encounters"]}


def _fit(files: list[Path], args: ValueTrainArgs) -> tuple[Any, Any, Any]:
    data = load_positions(files, draw=args.draw)
    train, test = split_by_game(data, args.held_out, seed=args.seed)
    return fit_value(train, args.fit, {"draw": args.draw}), train, test


def card_markdown(card: dict[str, Any]) -> str:
    """The model card as a GM or a researcher reads it."""
    s = card["held_out"]
    rows = [("learned value", s["learned"]), ("constant (training win rate)", s["constant"])]
    if "hand_written" in s:
        rows.insert(1, ("hand-written value (agents/search/value.py), read as (v + 1) / 2", s["hand_written"]))
        rows.insert(2, ("hand-written value, logistic-calibrated on the training positions",
                        s["hand_written_calibrated"]))
    lines = [f"# Learned value: {card['ruleset']}", "",
             "P(the deciding side wins | position), from the system's named features "
             f"(layout fingerprint `{card['fingerprint']}`, {card['features']} features) and the hand-written "
             "value. Run with numpy alone (`trpg_arena.agents.learned`); trained with torch (`train` extra)."
             + (f" A drawn game counts {card['fit']['draw']:g} of a win (the value is the expected score)."
                if card["fit"].get("draw") else ""), "",
             "## Reproduce", "", "```", card["command"], "```", "",
             f"Took {card['seconds'] / 60:.1f} minutes on the machine that built it; the model file is "
             f"{card['bytes']:,} bytes.", "", "## Data", ""]
    for i, g in enumerate(card["generations"]):
        where = (f"{g.get('encounters_played', '?')} encounters, generated (one block in four a built-in)"
                 if g.get("encounters") == "generated" else "the built-in encounters")
        lines.append(f"- generation {g.get('generation', i)}: {g['games']} games ({', '.join(g['agents'])}, "
                     f"{g['noise']:.0%} random moves) on {where}, {g['positions']:,} positions")
    lines.append(f"- the built-in encounters: {', '.join(card['encounters'])}")
    for e in card.get("extra", ()):
        lines.append(f"- pooled from `{e['file']}`: {e['games']} games ({e['agents']}, noise {e['noise']}, "
                     f"{e['encounters']} encounters, built-in and generated), {e['positions']:,} positions")
    lines += ["",
              "## Held-out positions", "",
              f"{s['held_out_positions']:,} positions of {s['held_out_games']} games never trained on "
              "(split by game).", "", "| predictor | log loss | Brier score |", "|---|---|---|"]
    lines += [f"| {name} | {v['log_loss']:.4f} | {v['brier']:.4f} |" for name, v in rows]
    fit = card["fit"]
    lines += ["", f"Network: inputs standardised, hidden layers {fit['hidden']} (tanh, dropout {fit['dropout']}), "
              f"weight decay {fit['weight_decay']}, plus a logistic term on the hand-written value; targets "
              f"TD(lambda = {fit['lam']}) over all generations' positions ({fit['td_rounds']} refit), early "
              "stopping on a tenth of the training games.", "",
              f"![calibration]({card['ruleset']}.png)", ""]
    return "\n".join(lines)
