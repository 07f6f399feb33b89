"""Post-combat statistics and the Markdown transcript, checked against the log of whole games."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from tests.conftest import SYSTEMS
from trpg_arena.table.session import Session
from trpg_arena.table.stats import OUTCOMES, damage_text, session_stats
from trpg_arena.table.transcript import transcript


def played(encounter: str, seed: int) -> Session:
    session = Session(encounter, seed=seed, pc="scripted", npc="scripted")
    session.run()
    assert session.combat.over
    return session


@pytest.mark.parametrize("rid", SYSTEMS)
def test_totals_add_up_and_match_the_log(rid: str) -> None:
    session = played(f"{rid}/skirmish", 1)
    stats = session_stats(session)
    out = json.loads(json.dumps(stats.to_json()))  # JSON-safe
    assert out["result"] == session.combat.result and out["rounds"] == session.combat.outcome.rounds
    assert out["decisions"] == len(session.records)
    end = {v.id: v for v in session.combat.combatants}
    taken: defaultdict[str, int] = defaultdict(int)
    dealt: defaultdict[str, int] = defaultdict(int)
    for (source, target), totals in stats.pairs.items():
        taken[target] += totals["damage"]
        if source is not None:
            dealt[source] += totals["damage"]
    for f in stats.fighters.values():
        assert f.hp_start - f.taken + f.healed == f.hp_end == end[f.id].hp
        assert f.taken == taken[f.id] and f.dealt == dealt[f.id]
        assert f.taken == sum(row.get(f.id, {}).get("taken", 0) for row in stats.per_round.values())
    assert sum(f.dealt for f in stats.fighters.values()) > 0
    ids = set(end)
    outcomes = [e for e in session.combat.log if e.kind in OUTCOMES and (e.data or {}).get("target") in ids]
    assert sum(f.hits + f.misses for f in stats.fighters.values()) == len(outcomes) + stats.unrolled_hits
    fallen = {f.combatant for f in stats.falls}
    start = {v.id: v for v in Session(f"{rid}/skirmish", seed=1).combat.combatants}
    assert {cid for cid, v in end.items() if not v.able and start.get(cid, v).able} <= fallen
    assert all(1 <= f.round <= stats.rounds for f in stats.falls)


@pytest.mark.parametrize("seed", range(4))
def test_damage_is_put_down_to_the_source_the_log_names(seed: int) -> None:
    """Moonlit's damage events name their source: the statistics agree with them, pair by pair."""
    session = played("moonlit/skirmish", seed)
    hp = {v.id: v.hp for v in Session("moonlit/skirmish", seed=seed).combat.combatants}
    want: defaultdict[tuple[str | None, str], int] = defaultdict(int)
    striker: dict[str, str] = {}  # within a decision, harm no event names a source for goes to the last striker
    for e in session.combat.log:
        data = e.data or {}
        if e.kind in ("decision", "auto_decision"):
            striker.clear()
        if data.get("hp_after") is None:
            continue
        who = data.get("receiver") or data.get("combatant") or data.get("target") or e.actor
        if e.kind == "damage_applied" and data.get("source"):
            striker[who] = data["source"]
        loss = hp.get(who, data["hp_after"]) - data["hp_after"]
        if loss > 0:
            want[(data.get("source") or striker.get(who), who)] += loss
        hp[who] = data["hp_after"]
    got = {pair: t["damage"] for pair, t in session_stats(session).pairs.items() if t["damage"]}
    assert got == {pair: n for pair, n in want.items() if n}


def test_the_transcript_has_every_decision_and_the_statistics() -> None:
    session = played("investigator/duel", 2)
    text = transcript(session)
    assert text.startswith("# Investigator")
    assert f"after {session.combat.outcome.rounds} rounds and {len(session.records)} decisions" in text
    for rec in session.records:
        assert f"{rec['n'] + 1}. **{rec['actor']}**" in text
    assert "## Statistics" in text and "### Who fell when" in text
    assert session.combat.log[-1].text.replace("[", "\\[").replace("]", "\\]") in text


def test_the_transcript_lists_each_move_once() -> None:
    session = played("kiai/duel", 2)
    lines = transcript(session).splitlines()
    moves = [line for line in lines if "move to [" in line]
    assert moves and all(not line.startswith("    - ") for line in moves), moves[:4]


def test_a_destroyed_summon_reads_destroyed_not_absent() -> None:
    stats = session_stats(played("moonlit/brawl", 1))
    summon = "puppeteer.dragon_tooth_soldier"
    assert {f.status for f in stats.falls if f.combatant == summon} == {"destroyed"}
    assert stats.fighters[summon].status == "destroyed"
    assert f"{summon} destroyed" in transcript(played("moonlit/brawl", 1))


def test_damage_past_the_hp_left_is_said_and_what_no_attack_roll_judged_counts_as_a_hit() -> None:
    """Harlow's shot at knifeman (10 HP left) states 26 damage: the statistics count 10 and keep the 16 apart."""
    session = played("investigator/skirmish", 3)
    stats = session_stats(session)
    pair = stats.pairs[("harlow", "knifeman")]
    applied = [e for e in session.combat.log if e.kind == "damage_applied" and e.actor == "knifeman"]
    assert pair["damage"] == sum(min(e.data["final"], max(0, e.data["hp_before"])) for e in applied)
    assert pair["damage"] + pair["beyond"] == sum(e.data["final"] for e in applied)
    assert damage_text(pair["damage"], pair["beyond"]) == "10 (26 rolled, capped at the HP left)"
    assert "| harlow | knifeman | 10 (26 rolled, capped at the HP left) |" in transcript(session)
    assert all(t["hits"] or not t["damage"] for (s, _), t in stats.pairs.items() if s is not None)
