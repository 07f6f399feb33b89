"""The end-of-combat statistics at the terminal: ids and values whole at any width, wound tracks in words, round 0.

Ids were cut to 18 characters, and at 60 columns headers and values to ``10/…``; kiai's table showed ``2/5``
hit points left for a fighter on its worst wound; reincarnator's surprise round was counted as round 1.
"""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from trpg_arena.experiments.table.report import health_words, stats_view
from trpg_arena.table.session import Session
from trpg_arena.table.stats import session_stats


def _shown(session: Session, width: int) -> str:
    console = Console(width=width, record=True, no_color=True)
    with console.capture() as out:
        console.print(stats_view(session_stats(session), width, health_words(session)))
    return out.get()


@pytest.fixture(scope="module")
def moonlit() -> Session:
    s = Session("moonlit/skirmish", seed=1, pc="scripted", npc="scripted")
    s.run()
    return s


def _ids(table: str) -> list[str]:
    """The ids in the table's first column, an id broken over lines of its cell joined again."""
    rows: list[str] = []
    for line in table.split("─\n")[-1].splitlines():
        words = line.split()
        if len(words) == 1 and rows:
            rows[-1] += words[0]
        elif words:
            rows.append(words[0])
    return rows


@pytest.mark.parametrize("width", [100, 80, 60, 50, 40])
def test_no_id_or_value_is_cut_at_any_width(moonlit: Session, width: int) -> None:
    text = _shown(moonlit, width)
    table = text.split("who fell when")[0]
    assert "…" not in table and all(len(line) <= width for line in text.splitlines())
    fighters = session_stats(moonlit).fighters.values()
    if "─" in table:  # a table: the ids whole in their column, every value in its row
        assert _ids(table) == [f.id for f in fighters], table
        assert all(f"{f.hp_end}/{f.max_hp}" in table for f in fighters), table
    else:  # too narrow for one: a line per combatant, wrapped between words
        joined = " ".join(table.split())
        for f in fighters:
            assert f"{f.id} ({f.side}): dealt {f.dealt}, taken {f.taken}" in joined, joined
            assert f"hp left {f.hp_end}/{f.max_hp}" in joined, joined
    if width >= 80:  # room enough for every id whole on its row (the longest is 30 characters)
        assert "puppeteer.dragon_tooth_soldier  " in table, table
    if width >= 100:  # and for every header whole
        assert all(h in table for h in ("dealt", "taken", "healed", "hits", "misses", "hp left"))


def test_a_wound_track_shows_the_wound_not_hit_points() -> None:
    s = Session("kiai/skirmish", seed=1, pc="scripted", npc="scripted")
    s.run()
    table = _shown(s, 100).split("who fell when")[0]
    assert "health" in table and "hp left" not in table
    assert re.search(r"gorza .*incapacitated", table) and not re.search(r"gorza .* \d+/5", table), table


def test_the_surprise_round_is_round_0() -> None:
    s = Session("reincarnator/skirmish", seed=4, pc="scripted", npc="scripted")
    s.run(max_decisions=12)
    stats = session_stats(s)
    assert [(f.round, f.combatant) for f in stats.falls] == [(0, "wen")]
    assert min(stats.per_round) == 0 and stats.to_json()["per_round"][0]["round"] == 0
    assert "round 0: wen" in _shown(s, 80)
