"""Golden playthroughs: recorded combats must replay byte for byte from their seed and recorded decisions.

A failure means the rules changed behaviour. If that was deliberate, re-record with ``make golden``
and bump the system's ``env_version``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SYSTEMS
from trpg_arena.rules import Action, Combat, get_ruleset

HERE = Path(__file__).parent
# here, per system id, and in the golden/ folder a system may ship inside its own package (the template does)
OWN = {rid: sorted((get_ruleset(rid).info.data_dir / "golden").glob("*.jsonl")) for rid in SYSTEMS}
FILES = sorted(HERE.glob("*/*.jsonl")) + [p for rid in SYSTEMS for p in OWN[rid]]


def _rid(path: Path) -> str:
    return next((rid for rid, files in OWN.items() if path in files), path.parent.name)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{_rid(p)}/{p.stem}")
def test_golden_replays_byte_for_byte(path: Path) -> None:
    header, *recorded = path.read_text(encoding="utf-8").splitlines()
    meta = json.loads(header)
    rid = meta["encounter"].split("/")[0]
    assert meta["env_version"] == get_ruleset(rid).info.env_version, "env_version changed: re-record (make golden)"
    combat = Combat(meta["encounter"], seed=meta["seed"])
    for line in recorded:
        ev = json.loads(line)
        if ev["kind"] == "decision":
            combat.act(Action.from_json(ev["data"]["action"]))
    got = [e.json_line() for e in combat.log]
    for i, (want, have) in enumerate(zip(recorded, got)):
        assert have == want, f"first difference at event {i}"
    assert len(got) == len(recorded)
    assert combat.over and combat.result == meta["result"]


@pytest.mark.parametrize("rid", SYSTEMS)
def test_every_system_has_golden_files(rid: str) -> None:
    assert any(_rid(p) == rid for p in FILES), f"no golden playthrough for {rid}: run make golden"
