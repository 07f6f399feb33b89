"""What the envs' arguments may be, checked when an env is made: a wrong one is a located error then.

Without these checks a wrong opponent or another system's encounter was taken by `make` and failed at the first
step deep inside the rules (an ``AttributeError``), or an AEC env over a kiai combat read it with moonlit's
layout (an ``IndexError`` at `last`).
"""

from __future__ import annotations

from typing import Any

from trpg_arena.agents.spec import AgentSpec, check_agent
from trpg_arena.rules import EncounterBase


def check_encounter_system(encounter: EncounterBase, ruleset: str) -> None:
    """An env plays the encounters of its own rule system only."""
    if encounter.ruleset != ruleset:
        raise ValueError(f"encounter is for '{encounter.ruleset}', this env plays '{ruleset}'")


RENDER_MODES = ("ansi", "rgb_array")  # both envs': a text map with recent events, and a picture


def check_render_mode(render_mode: object) -> None:
    """None (no picture) or one of the envs' render modes."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {', '.join(RENDER_MODES)}, got {render_mode!r}")


def check_opponent(opponent: object, ruleset: str) -> Any:
    """The opponent as the env keeps it: a checked spec string, an agent of this rule system, or a league.

    A spec (a string or an `AgentSpec`) is checked as every command checks one (`check_agent`: the name, the
    preset, every value, a model file's system). An agent object needs ``act`` and, where it says its rule
    system, this env's. A league gives each episode's opponent (``for_episode``).
    """
    if isinstance(opponent, AgentSpec):
        opponent = str(opponent)
    if isinstance(opponent, str):
        return check_agent(opponent, ruleset)
    if callable(getattr(opponent, "for_episode", None)):
        return opponent
    if callable(getattr(opponent, "act", None)):
        plays = getattr(opponent, "ruleset", None)
        if plays is not None and plays != ruleset:
            raise ValueError(f"opponent {type(opponent).__name__} plays '{plays}', this env plays '{ruleset}'")
        return opponent
    raise TypeError("opponent must be an agent spec such as 'random' or 'scripted', an agent (with act) or a "
                    f"league (with for_episode), got {opponent!r}")

