"""Who answers a combatant's decisions: a person, an agent, or an agent under review.

A seat is written as text on the command line, in an encounter's ``controllers:`` section and in API
requests: ``human``, an agent spec (``scripted``, ``mcts:hard``), or ``review:<agent spec>`` (the agent
proposes, a person confirms or overrides). A trailing ``+dice`` means the players roll that seat's
dice by hand (``human+dice``, ``review:scripted+dice``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from trpg_arena.agents.spec import AgentSpec, UnknownAgentError, check_agent
from trpg_arena.rules import EncounterBase, EncounterError


class SeatKind(enum.StrEnum):
    """How a seat decides."""

    HUMAN = "human"  # a person chooses (the GM for the players, or a player)
    AGENT = "agent"  # an agent decides and the session applies it at once
    REVIEW = "review"  # an agent proposes; a person confirms, overrides, or lets it run


@dataclass(frozen=True)
class Seat:
    """One controller: its kind, the agent spec (for agent and review seats) and whether dice are rolled by hand."""

    kind: SeatKind
    agent: str | None = None  # canonical agent spec string
    by_hand: bool = False

    @classmethod
    def parse(cls, text: str | Seat) -> Seat:
        """``human``, ``scripted``, ``mcts:hard``, ``review:scripted``, each optionally with ``+dice``."""
        if isinstance(text, Seat):
            return text
        if not isinstance(text, str) or not text.strip():
            raise UnknownAgentError(f"a seat is 'human', an agent spec or 'review:<agent>', got {text!r}")
        body = text.strip()
        by_hand = body.endswith("+dice")
        if by_hand:
            body = body[: -len("+dice")]
        if body == "human":
            return cls(SeatKind.HUMAN, None, by_hand)
        if body.startswith("review:"):
            return cls(SeatKind.REVIEW, str(AgentSpec.parse(body[len("review:"):])), by_hand)
        if body == "review":
            return cls(SeatKind.REVIEW, "scripted", by_hand)
        return cls(SeatKind.AGENT, str(AgentSpec.parse(body)), by_hand)

    def with_dice(self, by_hand: bool) -> Seat:
        """The same seat with dice rolled by hand or by the engine."""
        return Seat(self.kind, self.agent, by_hand)

    def __str__(self) -> str:
        core = "human" if self.kind is SeatKind.HUMAN else (
            f"review:{self.agent}" if self.kind is SeatKind.REVIEW else str(self.agent))
        return core + ("+dice" if self.by_hand else "")

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"kind": self.kind.value, "agent": self.agent, "by_hand": self.by_hand, "text": str(self)}


def check_controllers(encounter: EncounterBase) -> None:
    """Each agent an encounter's ``controllers:`` names is one its rule system can build, with allowed values.

    The encounter model checks the seat text's form only (the rules know no agents); `validate` and the server's
    validation said "ok" to ``mcts:simulations=0``, which every table then refused.
    """
    for key, text in (encounter.controllers or {}).items():
        try:
            seat = Seat.parse(text)
            if seat.agent is not None:
                check_agent(seat.agent, encounter.ruleset)
        except UnknownAgentError as e:
            raise EncounterError(str(e), source=encounter.source, path=f"controllers.{key}") from None
