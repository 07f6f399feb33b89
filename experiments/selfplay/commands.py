"""The ``trpg-arena features`` and ``trpg-arena selfplay`` commands (registered on the main app)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from trpg_arena.rules import Combat, get_ruleset, load_encounter

console = Console(highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add the commands to the ``trpg-arena`` app (called by experiments/cli.py)."""
    app.command()(features)


def features(system: Annotated[str, typer.Argument(help="rule system id (trpg-arena list)")],
             out: Annotated[Path | None, typer.Option(help="write the layout's Markdown page to this file")] = None,
             encounter: Annotated[str | None, typer.Option(help="print the nonzero features of this encounter's "
                                                                "first decision instead")] = None,
             seed: Annotated[int, typer.Option(help="seed of that combat")] = 0) -> None:
    """A rule system's feature layout (the docs/features page), or the features of an encounter's first position."""
    from trpg_arena.rules.core.features import encode, layout_for, markdown

    get_ruleset(system)
    if encounter is None:
        text = markdown(system)
        if out is None:
            console.print(text, markup=False, highlight=False)
        else:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
            console.print(f"written {out}")
        return
    enc = load_encounter(encounter)
    if enc.ruleset != system:
        raise typer.BadParameter(f"'{encounter}' is a {enc.ruleset} encounter, not {system}")
    combat = Combat(enc, seed=seed)
    layout = layout_for(system)
    decision = combat.decision
    side = decision.side if decision is not None and decision.side else enc.sides()[0]
    x = encode(combat, side)
    console.print(f"{system} layout {layout.fingerprint}: {layout.size} features from side '{side}' "
                  f"({int((x != 0).sum())} nonzero)", markup=False)
    for name, value in zip(layout.names, x):
        if value != 0:
            console.print(f"{name} = {value:.4g}", markup=False)
