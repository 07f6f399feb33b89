"""Golden playthroughs: recorded combats must replay byte for byte from their seed and recorded decisions.

A failure means the rules changed behaviour. If that was deliberate, re-record with ``make golden``
and bump the system's ``env_version``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SYSTEMS
from trpg_arena.rules import Action, Combat, TrpgArenaError, get_ruleset

HERE = Path(__file__).parent
CHANGED = (" The rules behave otherwise than when this file was recorded; if that is deliberate, bump the system's "
           "env_version and record again (make golden; python -m tests.golden.record --rewrite ID for wording only)")
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
            try:
                combat.act(Action.from_json(ev["data"]["action"]))
            except TrpgArenaError as e:
                pytest.fail(f"the recorded decision of event {ev['seq']} ({ev['text']}) is refused: {e}.{CHANGED}")
    got = [e.json_line() for e in combat.log]
    for i, (want, have) in enumerate(zip(recorded, got)):
        assert have == want, f"first difference at event {i}.{CHANGED}"
    assert len(got) == len(recorded)
    assert combat.over and combat.result == meta["result"]


@pytest.mark.parametrize("rid", SYSTEMS)
def test_every_system_has_golden_files(rid: str) -> None:
    assert any(_rid(p) == rid for p in FILES), f"no golden playthrough for {rid}: run make golden"


def test_a_decision_the_rules_now_refuse_says_what_to_do(tmp_path: Path) -> None:
    """A golden file whose recorded decision is no longer legal fails in words that say how to go on."""
    source = HERE / "moonlit" / "duel-seed1-random-random.jsonl"
    header, *events = source.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(events) if json.loads(line)["kind"] == "decision")
    doctored = json.loads(events[first])
    doctored["data"]["action"] = {"verb": "no_such_verb", "target": None, "option": None, "dest": None}
    events[first] = json.dumps(doctored, sort_keys=True, separators=(",", ":"))
    path = tmp_path / "duel-seed1-random-random.jsonl"
    path.write_text("\n".join([header, *events]) + "\n", encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match="is refused: .*bump the system's env_version"):
        test_golden_replays_byte_for_byte(path)
