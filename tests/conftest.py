"""Shared fixtures: the registry's rule systems and their built-in encounters."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

from trpg_arena.rules import RULESETS, builtin_encounters

# CI explores a fixed set of examples (derandomize) so a landing never depends on luck; `HYPOTHESIS_PROFILE=explore`
# draws fresh seeds and more of them.
settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

SYSTEMS = list(RULESETS)
ENCOUNTERS = [name for rid in SYSTEMS for name in builtin_encounters(RULESETS[rid])]
SKIRMISHES = [f"{rid}/skirmish" for rid in SYSTEMS if f"{rid}/skirmish" in ENCOUNTERS]
