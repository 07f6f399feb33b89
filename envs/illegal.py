"""What an env does with a masked action, and when an episode is cut short: one policy for both envs.

Like PettingZoo's `TerminateIllegalWrapper`, it stands between the learner's action and the engine: the
Gymnasium env and the AEC env ask it what a step that named an illegal action means (a loss, a penalty, or
an error), and count the steps that bound an episode. The envs then say it in their own API's words.

- ``"lose"`` (the default, PettingZoo's classic convention, so checkers that step unmasked actions pass):
  the episode ends, -1 for the one who chose it;
- ``"penalize"``: reward ``-penalty``, nothing changes and the agent chooses again; ``max_illegal``
  illegal actions in a row truncate the episode (default 100), so no policy can loop for ever;
- ``"raise"`` (strict, for tests): `IllegalActionError`, and nothing changes (the step is not counted).

Every episode is truncated after ``max_steps`` steps (default 5,000; each rule system's round cap ends a
combat long before).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass

from trpg_arena.rules import IllegalActionError

ILLEGAL_ACTIONS = ("lose", "penalize", "raise")
MAX_EPISODE_STEPS = 5000  # steps before an episode is truncated (the registered ids' default)
MAX_ILLEGAL = 100  # illegal actions in a row before a penalize-mode episode is truncated


def finite_number(value: object) -> bool:
    """Whether `value` is a number (not a bool) that is neither infinite nor NaN."""
    return not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(float(value))


def _check_limit(name: str, limit: object) -> None:
    """A step limit is None (no limit) or a whole number of at least 1: 0 or 2.5 could never work as meant."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, numbers.Integral) or int(limit) < 1):
        raise ValueError(f"{name} must be None (no limit) or a whole number of at least 1, got {limit!r}")


@dataclass(frozen=True)
class Verdict:
    """What one illegal action does to the episode: its reward, and whether it ends (lost) or is cut (truncated)."""

    reward: float
    lost: bool
    truncated: bool


class IllegalActions:
    """One env's illegal-action policy and step limits, with the counts of the episode under way."""

    def __init__(self, mode: str = "lose", penalty: float = 0.1, max_steps: int | None = MAX_EPISODE_STEPS,
                 max_illegal: int | None = MAX_ILLEGAL) -> None:
        if mode not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTIONS)}")
        if not finite_number(penalty) or penalty < 0:  # a negative penalty would reward illegal actions
            raise ValueError(f"illegal_penalty must be a finite number of at least 0, got {penalty!r}")
        _check_limit("max_episode_steps", max_steps)
        _check_limit("max_illegal", max_illegal)
        self.mode = mode
        self.penalty = penalty
        self.max_steps = max_steps
        self.max_illegal = max_illegal
        self.steps = 0  # steps of this episode, illegal ones included
        self.in_a_row = 0  # illegal actions since the last legal one

    def reset(self) -> None:
        """A new episode: nothing counted yet."""
        self.steps = self.in_a_row = 0

    def legal(self) -> bool:
        """Count a legal step; whether it reaches the step limit (the env truncates unless the combat just ended)."""
        self.steps += 1
        self.in_a_row = 0
        return self.limit_reached()

    def illegal(self, why: Callable[[], str]) -> Verdict:
        """Count an illegal step and say what it does; in ``"raise"`` mode raise `IllegalActionError` (``why()``).

        ``why`` is only called to raise, so the envs build the message (the decision, the legal count) then only.
        """
        if self.mode == "raise":
            raise IllegalActionError(why())
        self.steps += 1
        if self.mode == "lose":
            return Verdict(-1.0, lost=True, truncated=False)
        self.in_a_row += 1
        looping = self.max_illegal is not None and self.in_a_row >= self.max_illegal
        return Verdict(-float(self.penalty), lost=False, truncated=looping or self.limit_reached())

    def limit_reached(self) -> bool:
        """Whether the episode has taken `max_steps` steps."""
        return self.max_steps is not None and self.steps >= self.max_steps
