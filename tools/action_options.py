"""How many option slots each block of a canonical action layout uses, against what it declares.

    .venv/bin/python tools/action_options.py [--games 4]

Per rule system and block with several options: the declared limit (``ActionBlock.options``), the
most distinct options of the block in any encounter's catalogue (built-ins and ``tests/unseen``; a
bound no decision can exceed, but loose: the catalogue lists every combatant's options together),
and the most a single decision offered in ``--games`` games per encounter (random against scripted,
sides alternating). A block's size is its option limit times its target slots and squares, so these
say how far the limits could shrink; a decision beyond a limit raises `ActionLimitError`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from trpg_arena.agents import make_agent
from trpg_arena.agents.canonical import CanonicalCodec
from trpg_arena.rules import RULESETS, Combat, builtin_encounters, load_encounter
from trpg_arena.rules.core.action_layout import action_layout_for, tables_for

UNSEEN = Path(__file__).resolve().parents[1] / "tests" / "unseen"


def main() -> None:
    """Print a Markdown table per rule system."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--games", type=int, default=4, help="games per encounter")
    args = parser.parse_args()
    for rid in RULESETS:
        layout = action_layout_for(rid)
        names: list[str] = [*builtin_encounters(RULESETS[rid]), *map(str, sorted(UNSEEN.glob(f"{rid}_*.yaml")))]
        in_catalogue = [0] * len(layout.spec.blocks)
        used = [0] * len(layout.spec.blocks)
        for name in names:
            encounter = load_encounter(name)
            tables = tables_for(encounter)
            for b in range(len(layout.spec.blocks)):
                in_catalogue[b] = max(in_catalogue[b], len(np.unique(tables.key[tables.block == b])))
            codec = CanonicalCodec.of(RULESETS[rid], encounter)
            for seed in range(args.games):
                combat = Combat(encounter, seed=seed, record=False)
                agents = {side: make_agent("random" if (seed + i) % 2 else "scripted", rid, seed=seed)
                          for i, side in enumerate(combat.sides)}
                while combat.decision is not None:
                    for i in codec.legal_indices(combat).tolist():
                        b = int(np.searchsorted(layout.base, i, side="right")) - 1
                        option = (i - layout.bases[b]) // int(layout.squares[b]) % layout.spec.blocks[b].options
                        used[b] = max(used[b], option + 1)
                    side = combat.decision.side
                    assert side is not None  # the combat is not over
                    combat.act(agents[side].act(combat))
        print(f"\n{rid}: {layout.size:,} actions\n")
        print("| verb | target | square | declared | in a catalogue | used at a decision | block size |")
        print("|---|---|---|---|---|---|---|")
        for b, blk in enumerate(layout.spec.blocks):
            if blk.options > 1:
                target, square = "row" if blk.target else "-", "yes" if blk.square else "-"
                print(f"| {blk.verb} | {target} | {square} | {blk.options} | {in_catalogue[b]} | {used[b]} | "
                      f"{layout.block_size(b):,} |")


if __name__ == "__main__":
    main()
