"""The series spec: a frozen, hashable description of a run of games that fixes every result."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Any

from trpg_arena.agents.spec import check_agent
from trpg_arena.experiments.runner import check_lineup
from trpg_arena.rules import RULESETS, EncounterBase, load_encounter


def encounter_json(enc: EncounterBase) -> str:
    """The encounter's content as canonical JSON (sorted keys, no spaces): what its hash is taken of."""
    return json.dumps(enc.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))


def content_hash(text: str) -> str:
    """Short SHA-256 of an encounter's canonical JSON."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# more games than any series needs: a series lists its games' seeds up front, and 10**12 of them filled the
# memory before the first game
MAX_GAMES = 1_000_000


@dataclass(frozen=True)
class SeriesSpec:
    """Games ``0 .. games-1`` of one encounter and one agent line-up.

    Game ``i`` belongs to pair ``i // 2`` and plays seed ``first_seed + i // 2`` when `swap` is on
    (its odd game gives the first agent spec to the second side: a side-swapped pair on the same
    dice), else seed ``first_seed + i`` in the line-up's order. The encounter travels as its
    canonical JSON so that a worker (or a Ray node) rebuilds exactly the fight that was hashed.
    """

    name: str  # the encounter as the user typed it (a built-in name or a path)
    content: str  # canonical JSON of the encounter
    ruleset: str
    env_version: int
    lineup: tuple[str, ...]  # agent specs in side order (before any swap)
    games: int
    first_seed: int = 0
    swap: bool = True

    @classmethod
    def build(cls, encounter: str | EncounterBase, lineup: list[str] | tuple[str, ...], games: int,
              first_seed: int = 0, swap: bool | None = None, name: str | None = None) -> SeriesSpec:
        """A spec from an encounter (name, path or loaded) and agent specs, one per side.

        `swap` defaults to on when the line-up has different agents: a mirror line-up's swapped
        game would replay its partner move for move, so it plays fresh seeds instead.
        """
        enc = load_encounter(encounter)
        sides = enc.sides()
        lineup = tuple(lineup)
        check_lineup(sides, lineup)
        for agent in lineup:  # a misspelt spec, a bad value or model file is named here, before any game
            check_agent(agent, enc.ruleset)
        if not 1 <= games <= MAX_GAMES:
            raise ValueError(f"a series has from 1 to {MAX_GAMES:,} games, got {games:,}")
        if swap is None:
            swap = len(set(lineup)) > 1
        if swap and len(sides) != 2:
            swap = False  # swapping is defined for two sides; more sides keep their line-up
        label = name if name is not None else (encounter if isinstance(encounter, str) else enc.source)
        return cls(str(label), encounter_json(enc), enc.ruleset, RULESETS[enc.ruleset].info.env_version, lineup,
                   games, first_seed, swap)

    @cached_property
    def content_hash(self) -> str:
        """Hash of the encounter content."""
        return content_hash(self.content)

    @cached_property
    def sides(self) -> tuple[str, ...]:
        """Side names in roster order."""
        return tuple(self.encounter().sides())

    def encounter(self) -> EncounterBase:
        """The encounter rebuilt from its content (cached per process by `game._encounter`)."""
        from trpg_arena.experiments.series.game import encounter_of

        return encounter_of(self.content, self.name)

    def seed(self, i: int) -> int:
        """Seed of game `i`."""
        return self.first_seed + (i // 2 if self.swap else i)

    def swapped(self, i: int) -> bool:
        """Whether game `i` plays the line-up reversed."""
        return self.swap and i % 2 == 1

    def with_games(self, games: int, first_seed: int | None = None) -> SeriesSpec:
        """The same series with another number of games (and optionally other seeds)."""
        return SeriesSpec(self.name, self.content, self.ruleset, self.env_version, self.lineup, games,
                          self.first_seed if first_seed is None else first_seed, self.swap)

    def identity(self) -> dict[str, Any]:
        """What a baseline must share with a new run to be comparable (seeds and game count excluded)."""
        return {"encounter": self.name, "content_hash": self.content_hash, "ruleset": self.ruleset,
                "env_version": self.env_version, "lineup": list(self.lineup), "swap": self.swap}

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form (the content as data, so a baseline can say which fields changed)."""
        d = asdict(self)
        d["content"] = json.loads(self.content)
        d["lineup"] = list(self.lineup)
        d["content_hash"] = self.content_hash
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SeriesSpec:
        """Inverse of `to_json` (raises KeyError / TypeError on a malformed dict; callers name the file)."""
        content = json.dumps(d["content"], sort_keys=True, separators=(",", ":"))
        return cls(str(d["name"]), content, str(d["ruleset"]), int(d["env_version"]),
                   tuple(str(a) for a in d["lineup"]), int(d["games"]), int(d["first_seed"]), bool(d["swap"]))
