"""Legal sets on 1,000 random states per rule system, digested: the record that shows hidden behaviour unchanged.

Refactors of the kernel and the plugins (compiled tables, cheap clones, rollback) must not change what is
legal anywhere. The recorder plays masked random games (its own generator, nothing from `agents/`) over every
built-in encounter in turn and digests the ordered legal list at every other decision. The digests of today's
engine live in ``legal_sets.json``; `test_legal_sets.py` replays the same games and compares.

Re-record (only for a deliberate rule change that also bumps the system's ``env_version``)::

    python -m tests.conformance.legal_record
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from trpg_arena.rules import RULESETS, Combat, builtin_encounters

RECORD = Path(__file__).with_name("legal_sets.json")
STATES = 1000  # per rule system
STRIDE = 2  # a digest every other decision: more games, more varied states for the same count


def digest(legal: list[Any]) -> str:
    """A short digest of an ordered legal list (order matters: the env's masks and agents read it)."""
    text = json.dumps([a.to_json() for a in legal], sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def play(encounter: str, seed: int) -> list[str]:
    """Digests of the legal lists along one masked random game."""
    c = Combat(encounter, seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    step = 0
    while not c.over:
        legal = c.legal_actions()
        if step % STRIDE == 0:
            out.append(digest(legal))
        c.act(legal[int(rng.integers(len(legal)))])
        step += 1
    return out


def record() -> dict[str, list[dict[str, Any]]]:
    """Play every system's built-ins in turn, seed after seed, until `STATES` digests each."""
    out: dict[str, list[dict[str, Any]]] = {}
    for rid in RULESETS:
        names = builtin_encounters(RULESETS[rid])
        rows: list[dict[str, Any]] = []
        total = seed = 0
        while total < STATES:
            name = names[seed % len(names)]
            d = play(name, seed)[: STATES - total]
            rows.append({"encounter": name, "seed": seed, "digests": d})
            total += len(d)
            seed += 1
        out[rid] = rows
    return out


if __name__ == "__main__":
    RECORD.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"written {RECORD}")
