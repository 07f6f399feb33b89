"""What a side-swapped series really measured: its seed pairs, split 1-1, won twice or lost twice by agent A.

    .venv/bin/python tools/seed_pairs.py FOLDER...     # folders written by `trpg-arena evaluate --out`
    .venv/bin/python tools/seed_pairs.py LADDER/games/A--B.jsonl...   # one pair of a `trpg-arena ladder` run

`trpg-arena evaluate` reports these counts itself (its summary's `seed_pairs`); this tool reads them off
folders and a ladder's pair files. `trpg-arena evaluate` plays each seed twice with the sides swapped, and
the scripted agent, the dice and the encounter are all seeded by it (the `trained` agent never reads or
advances the live dice). So a scripted policy against itself splits every pair one game each, and against
scripted a pair is won or lost twice only where agent A's departures from the script changed a game: A's
share of the games is 50 % plus (won twice - lost twice) / (2 x pairs). Two agents played on the same seeds
are compared best by the pairs each changed, not by two noisy rates; a ladder's pair of agents likewise (a
ladder swaps the sides every other game on the same seed). One Markdown row per folder or pair file.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

from trpg_arena.experiments.series.game import encounter_of
from trpg_arena.experiments.series.pairs import SeedPairs, count_seed_pairs
from trpg_arena.rules import load_encounter


def series_folder(path: Path) -> Path:
    """The folder holding `spec.json` and `results.jsonl`: the one given, or the one series inside it."""
    if (path / "spec.json").is_file():
        return path
    found = sorted(p.parent for p in path.glob("*/spec.json"))
    if len(found) != 1:
        raise SystemExit(f"error: {path}: expected one series folder (spec.json and results.jsonl), found {len(found)}")
    return found[0]


@dataclass(frozen=True)
class Pairs:
    """A series' name and its seed pairs as the package counts them (`experiments.series.pairs.SeedPairs`)."""

    series: str
    counts: SeedPairs

    def row(self) -> str:
        """One Markdown row."""
        c = self.counts
        return (f"| {self.series} | {c.pairs} | {c.split} | {c.won_twice} | {c.lost_twice} | "
                f"{c.with_draw} | {100 * c.score:.1f} % |")


def seed_pairs(path: Path) -> Pairs:
    """The pairs of the series in `path`; a series that was not side-swapped is refused with one line."""
    if path.suffix == ".jsonl":
        return ladder_pairs(path)
    folder = series_folder(path)
    spec = json.loads((folder / "spec.json").read_text(encoding="utf-8"))
    if not spec.get("swap"):
        raise SystemExit(f"error: {folder}: the series was not side-swapped, so its games are not seed pairs")
    sides = encounter_of(json.dumps(spec["content"]), spec["name"]).sides()
    label = f"{spec['name']}, {' vs '.join(spec['lineup'])}, seed {spec['first_seed']}"
    return count_pairs(label, sides, folder / "results.jsonl")


def ladder_pairs(path: Path) -> Pairs:
    """One pair of agents of a ladder run (`LADDER/games/A--B.jsonl`, its settings in `LADDER/ladder-spec.json`)."""
    spec_file = path.parent.parent / "ladder-spec.json"
    if not path.is_file() or not spec_file.is_file():
        raise SystemExit(f"error: {path}: not a pair's games of a ladder run (LADDER/games/A--B.jsonl beside "
                         "LADDER/ladder-spec.json)")
    spec = json.loads(spec_file.read_text(encoding="utf-8"))
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    lineup = first["agents"][::-1] if first["swapped"] else first["agents"]
    label = f"{spec['encounter']}, {' vs '.join(lineup)}, ladder seed {spec['seed']}"
    return count_pairs(label, load_encounter(spec["encounter"]).sides(), path)


def count_pairs(label: str, sides: tuple[str, ...] | list[str], results: Path) -> Pairs:
    """Agent A's points per seed over a results file, counted as pairs (`experiments.series.pairs`)."""
    records = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    return Pairs(label, count_seed_pairs(sides, ((r["seed"], r["swapped"], r["result"]) for r in records)))


def main(argv: list[str] | None = None) -> None:
    """Print one Markdown row per series folder (``--help``: the module docstring)."""
    parser = argparse.ArgumentParser(prog="seed_pairs.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", type=Path, metavar="FOLDER|PAIR.jsonl",
                        help="a folder `trpg-arena evaluate --out` wrote, or a ladder's games/A--B.jsonl")
    args = parser.parse_args(argv)
    rows = [seed_pairs(path).row() for path in args.paths]  # every folder read before a line is printed
    print("| series | pairs | split 1-1 | won twice | lost twice | other (a draw) | A's score |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
