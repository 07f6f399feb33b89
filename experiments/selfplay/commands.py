"""The ``trpg-arena features`` and ``trpg-arena selfplay`` commands (registered on the main app)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trpg_arena.experiments.consoles import command_console
from trpg_arena.experiments.out_files import check_folder, check_replaceable
from trpg_arena.rules import Combat, get_ruleset, load_encounter
from trpg_arena.rules.core.dice import SEED_MAX

console = command_console()


def register(app: typer.Typer) -> None:
    """Add the commands to the ``trpg-arena`` app (called by experiments/cli.py)."""
    app.command()(features)
    app.command()(selfplay)


def features(system: Annotated[str, typer.Argument(help="rule system id (trpg-arena list)")],
             out: Annotated[Path | None, typer.Option(help="write the layout's Markdown page to this file")] = None,
             force: Annotated[bool, typer.Option(help="replace the --out file if it exists")] = False,
             encounter: Annotated[str | None, typer.Option(help="print the nonzero features of this encounter's "
                                                                "first decision instead")] = None,
             seed: Annotated[int, typer.Option(min=0, max=SEED_MAX, help="seed of that combat")] = 0) -> None:
    """A rule system's feature layout (the docs/features page), or the features of an encounter's first position."""
    from trpg_arena.rules.core.features import encode, layout_for, markdown

    get_ruleset(system)
    if out is not None:  # before anything: a file there is replaced only with --force
        check_folder(out.parent, f"--out {out}: its folder")
        check_replaceable(out, force)
    if encounter is None:
        lines = [markdown(system)]
    else:
        enc = load_encounter(encounter)
        if enc.ruleset != system:
            raise typer.BadParameter(f"'{encounter}' is a {enc.ruleset} encounter, not {system}")
        combat = Combat(enc, seed=seed)
        layout = layout_for(system)
        decision = combat.decision
        side = decision.side if decision is not None and decision.side else enc.sides()[0]
        x = encode(combat, side)
        lines = [f"{system} layout {layout.fingerprint}: {layout.size} features from side '{side}' "
                 f"({int((x != 0).sum())} nonzero)"]
        lines += [f"{name} = {value:.4g}" for name, value in zip(layout.names, x) if value != 0]
    if out is None:
        for line in lines:
            console.print(line, markup=False, highlight=False)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines).rstrip("\n") + "\n", encoding="utf-8")  # with --encounter it was not written
    console.print(f"written {out}", markup=False)


def selfplay(system: Annotated[str, typer.Argument(help="rule system id (trpg-arena list)")],
             games: Annotated[int, typer.Option(help="games in all")] = 1000,
             out: Annotated[Path, typer.Option(help="the .npz file to write (positions, outcomes, values)")] = Path(
                 "data/selfplay.npz"),
             agents: Annotated[str, typer.Option(help="agent spec per side, comma-separated")] = "scripted,scripted",
             noise: Annotated[float, typer.Option(help="chance that a decision is a random legal action")] = 0.15,
             sample: Annotated[float, typer.Option(help="share of the positions written (seeded)")] = 1.0,
             encounters: Annotated[str, typer.Option(help="builtin and/or generated, comma-separated")] = (
                 "builtin,generated"),
             per_encounter: Annotated[int, typer.Option(help="games per encounter block")] = 8,
             seed: Annotated[int, typer.Option(min=0, max=SEED_MAX,
                                               help="first seed (and first generated encounter)")] = 0,
             workers: Annotated[int | None, typer.Option(help="game processes (default: all cores)")] = None,
             backend: Annotated[str, typer.Option(help="local (a process pool) or ray")] = "local",
             force: Annotated[bool, typer.Option(help="replace the --out file if it exists")] = False) -> None:
    """Self-play positions for learned values: features, side, game, decision, outcome, hand-written value."""
    import json

    from trpg_arena.experiments.selfplay.run import SelfplayArgs, run_selfplay

    def split(text: str) -> tuple[str, ...]:
        return tuple(v.strip() for v in text.split(",") if v.strip())

    check_replaceable(out, force)  # hours of self-play are not replaced by a mistyped command
    args = SelfplayArgs(system, games, out, split(agents), noise, sample, split(encounters), per_encounter, seed,
                        workers, backend)
    summary = run_selfplay(args, console)
    console.print(json.dumps(summary), markup=False, highlight=False)
    if not summary["complete"]:
        console.print(f"interrupted: {summary['games']} games written to {args.out}", markup=False)
        raise typer.Exit(130)
