"""Errors raised by trpg-arena; every one a subclass of `TrpgArenaError`."""

from __future__ import annotations

from typing import Any


class TrpgArenaError(Exception):
    """Base class of every error trpg-arena raises on purpose."""


class EncounterError(TrpgArenaError, ValueError):
    """An encounter (file, dict or built-in name) is malformed; names the file, field path and what was expected."""

    def __init__(self, message: str, *, source: str | None = None, path: str | None = None,
                 expected: str | None = None, actual: Any = None) -> None:
        self.message = message
        self.source = source
        self.path = path
        self.expected = expected
        self.actual = actual
        parts = []
        if source:
            parts.append(str(source))
        if path:
            parts.append(f"field '{path}'")
        head = ": ".join(parts)
        text = f"{head}: {message}" if head else message
        if expected is not None:
            text += f" (expected {expected}"
            text += f", got {actual!r})" if actual is not None else ")"
        super().__init__(text)


class UnknownRulesetError(EncounterError):
    """A ruleset id that no registered rule system has."""


class RuleSystemError(TrpgArenaError, ValueError):
    """A rule-system package that cannot be registered: its folder's name is no id, or its id is taken."""


class InvalidActionError(TrpgArenaError, ValueError):
    """An action that is malformed: not an `Action`, or an index outside the action space."""


class IllegalActionError(TrpgArenaError, ValueError):
    """A well-formed action that is not legal at the current decision point."""


class DiceScriptError(TrpgArenaError, RuntimeError):
    """Scripted dice were asked for a different die, held an impossible face, or ran out."""


class DiceNeeded(TrpgArenaError):
    """Dice rolled by hand have no face entered yet: `request` says which; the action changed nothing."""

    def __init__(self, request: Any) -> None:
        super().__init__(request.text())
        self.request = request


class DiceEntryError(TrpgArenaError, ValueError):
    """Faces typed for a roll by hand that do not fit it (wrong face, count or not a number)."""


class SnapshotError(TrpgArenaError, ValueError):
    """A snapshot (save) that cannot be restored: corrupt, truncated or from another version."""


class ResetNeeded(TrpgArenaError, RuntimeError):
    """An environment was stepped before `reset()` or after its episode ended."""
