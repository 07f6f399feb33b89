"""The log names every part of a moonlit damage or healing total: dice rolled, and each flat bonus by its source.

``kei damage (strike): [6, 4] = 10`` was followed by ``ghoul takes 16 - 6 defence``: the +4 of the strike and
the +2 of the claws were nowhere (MOON-8.12, 15.8); ``regeneration heal: [1] = 1`` by ``heals 3`` (MOON-11.5).
"""

from __future__ import annotations

import re

from trpg_arena.table.session import Session

PARTS = re.compile(r"(\d+) \((\d+) rolled((?: \+ \d+ \w+)+)\)")


def _log(seed: int) -> list[str]:
    s = Session("moonlit/skirmish", seed=seed, pc="scripted", npc="scripted")
    s.run()
    return [e.text for e in s.combat.log if e.kind in ("damage_applied", "healed")]


def test_damage_and_healing_totals_add_up_to_their_named_parts() -> None:
    lines = _log(3) + _log(2)
    parted = [m for line in lines for m in PARTS.finditer(line)]
    assert any("takes" in line and PARTS.search(line) for line in lines), lines
    assert any("heals" in line and PARTS.search(line) for line in lines), lines
    for m in parted:
        flats = [int(n) for n in re.findall(r"\+ (\d+)", m.group(3))]
        assert int(m.group(1)) == int(m.group(2)) + sum(flats), m.group(0)
