"""The feature layout's promises: rows in their documented order, limits, docs and command, speed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from trpg_arena.agents import make_agent
from trpg_arena.rules import Combat, load_encounter
from trpg_arena.rules.core.features import FeatureLimitError, encode, layout_for, markdown

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ("moonlit", "kiai", "investigator", "reincarnator")


def column(layout, row: str, name: str) -> int:  # type: ignore[no-untyped-def]
    return layout.names.index(f"{row}.{name}")


@pytest.mark.parametrize("rid", SHIPPED)
def test_the_docs_page_is_the_generated_layout(rid: str) -> None:
    page = ROOT / "docs" / "features" / f"{rid}.md"
    assert page.read_text(encoding="utf-8") == markdown(rid), (
        f"docs/features/{rid}.md is stale: run trpg-arena features {rid} --out docs/features/{rid}.md --force")
    for name in layout_for(rid).row_columns:
        assert f"`{name.name}`" in page.read_text(encoding="utf-8")


def test_allies_and_enemies_are_sorted_by_distance_to_the_actor() -> None:
    combat = Combat("kiai/brawl", seed=1)
    layout = layout_for("kiai")
    side = combat.decision.side
    x = encode(combat, side)
    for group, n in (("ally", layout.limits.allies), ("enemy", layout.limits.enemies)):
        present = [x[column(layout, f"{group}{i + 1}", "present")] for i in range(n)]
        dist = [x[column(layout, f"{group}{i + 1}", "distance")] for i in range(n) if present[i]]
        able = [x[column(layout, f"{group}{i + 1}", "able")] for i in range(n) if present[i]]
        assert present == sorted(present, reverse=True), "padding rows come last"
        assert all(a == 1.0 for a in able) and dist == sorted(dist)
    allies = sum(1 for v in combat.combatants if v.side == side) - 1
    assert x[column(layout, f"ally{allies}", "present")] == 1.0
    assert not x[column(layout, f"ally{allies + 1}", "present")]
    start = layout.names.index(f"ally{allies + 1}.present")
    assert not x[start:start + layout.row_size].any(), "a padding row is all zeros"


def test_the_other_sides_view_marks_the_decider_among_its_enemies() -> None:
    combat = Combat("moonlit/skirmish", seed=2)
    layout = layout_for("moonlit")
    d = combat.decision
    other = next(s for s in combat.encounter.sides() if s != d.side)
    x = encode(combat, other)
    assert x[layout.names.index("global.decider_is_ours")] == 0.0
    assert x[column(layout, "actor", "is_decider")] == 0.0
    marked = [i for i in range(layout.limits.enemies) if x[column(layout, f"enemy{i + 1}", "is_decider")] == 1.0]
    assert len(marked) == 1


def test_an_unknown_side_is_refused_naming_the_sides() -> None:
    with pytest.raises(ValueError, match="no side 'C' in encounter 'duel' .sides: A, B."):
        encode(Combat("moonlit/duel", seed=1), "C")


def test_a_finished_combat_still_encodes_from_both_sides() -> None:
    combat = Combat("kiai/duel", seed=4)
    agent = make_agent("random", "kiai", seed=4)
    while combat.decision is not None:
        combat.act(agent.act(combat))
    for side in combat.encounter.sides():
        x = encode(combat, side)
        assert x.shape == (layout_for("kiai").size,) and x[0] == 0.0


def test_an_encounter_beyond_the_limits_is_refused_naming_the_limit() -> None:
    enc = load_encounter("moonlit/brawl").model_dump(mode="json")
    extra = [dict(c, id=f"{c['id']}_twin", name=None) for c in enc["combatants"] if c["side"] == "A"][:3]
    enc["combatants"] += extra
    big = load_encounter(enc)
    with pytest.raises(FeatureLimitError, match="at most 8 per side"):
        layout_for("moonlit").check(big)
    with pytest.raises(FeatureLimitError, match="at most 8 per side"):
        encode(Combat(big, seed=1), "A")


def test_possible_summons_count_towards_the_limit() -> None:
    brawl = load_encounter("moonlit/brawl")
    layout_for("moonlit").check(brawl)  # six a side, and side A's two possible summons: eight
    enc = brawl.model_dump(mode="json")
    a = [c for c in enc["combatants"] if c["side"] == "A"]
    enc["combatants"].append(dict(a[0], id="seventh", name=None, skills=["strike"]))
    with pytest.raises(FeatureLimitError, match="can put 9 combatants .summons and arrivals included. on side 'A'"):
        layout_for("moonlit").check(load_encounter(enc))


def test_the_features_command_prints_the_page_and_an_encounters_features(tmp_path: Path) -> None:
    cli = [sys.executable, "-m", "trpg_arena.experiments.cli", "features"]
    page = tmp_path / "kiai.md"
    run = subprocess.run([*cli, "kiai", "--out", str(page)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert page.read_text(encoding="utf-8") == markdown("kiai")
    run = subprocess.run([*cli, "kiai", "--encounter", "kiai/duel"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "actor.present = 1" in run.stdout, run.stderr
    run = subprocess.run([*cli, "kiai", "--encounter", "moonlit/duel"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "moonlit encounter" in run.stderr and "Traceback" not in run.stderr
