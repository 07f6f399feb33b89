"""What a GM reads at the terminal: PCs not asked moonlit's routine escape, kiai's techniques explained, odds.

Driven through ``trpg-arena autopilot`` in an 80 x 24 pseudo-terminal (see `Gm`).
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.experiments.test_autopilot import Gm, only_session


def test_moonlit_pcs_stay_unasked_unless_the_table_asks_and_r_switches_it(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    gm = Gm("moonlit/skirmish", "--npc", "scripted", "--no-review", "--seed", "1", db=db, out=tmp_path)
    assert gm.wait() == "menu"
    assert "escape" not in gm.screen.split("choose")[-1]  # the first question is worth asking
    assert re.search(r"r1 (kei|mio|sayo): stays \(as usual: not asked\)", gm.screen), gm.screen[-1500:]
    gm.send("r")  # the table wants the question from now on (stored with the session)
    assert gm.wait() == "menu" and "PCs are now asked: escape (stay unless asked)" in gm.screen
    gm.send("q")
    gm.child.close()
    assert only_session(db).ask_routine

    asked = tmp_path / "asked.db"
    gm = Gm("moonlit/skirmish", "--npc", "scripted", "--no-review", "--seed", "1", "--ask-routine", db=asked,
            out=tmp_path)
    assert gm.wait() == "menu" and gm.match is not None
    lines = re.findall(r"^\s*\d+ (.+?)\s*$", gm.screen.split("choose")[-1], re.MULTILINE)
    assert gm.match.group(1) in ("kei", "mio", "sayo") and lines[:2] == ["tries to escape", "stays"], gm.screen[-800:]
    gm.send("q")
    gm.child.close()


def test_kiai_technique_lines_say_what_they_do_and_attacks_show_their_odds(tmp_path: Path) -> None:
    gm = Gm("kiai/duel", "--seat", "wanderers=human", "--npc", "scripted", "--no-review", "--seed", "1",
            db=tmp_path / "s.db", out=tmp_path)
    for _ in range(12):  # move towards gorza until an attack is offered
        assert gm.wait() == "menu"
        if re.search(r"^\s*\d+ attack\s", gm.screen, re.MULTILINE):
            break
        gm.send(gm.key_of("move") if gm.match and gm.match.group(2) == "verb" else "1")
    gm.send(gm.key_of("attack"))
    assert gm.wait() == "menu" and gm.match is not None and gm.match.group(2) == "technique", gm.screen[-1200:]
    assert "no technique" in gm.screen and "technique 20: hit -20, foe's dodge -20" in gm.screen
    gm.send(gm.key_of("no technique"))
    assert gm.wait() == "menu"
    assert re.search(r"attack gorza\s+\n?\s*\d+ % to land \(hit \d+ vs dodge \d+\), about \d+ through its defence",
                     gm.screen), gm.screen[-1500:]
    gm.send("q")
    gm.child.close()


def test_a_moonlit_pc_attack_shows_its_odds(tmp_path: Path) -> None:
    gm = Gm("moonlit/duel", "--npc", "scripted", "--no-review", "--seed", "1", db=tmp_path / "s.db", out=tmp_path)
    for _ in range(12):
        assert gm.wait() == "menu"
        if re.search(r"^\s*\d+ attacks with", gm.screen, re.MULTILINE) or re.search(r"^\s*\d+ attack\s", gm.screen,
                                                                                    re.MULTILINE):
            break
        gm.send("1")
    if gm.match is not None and gm.match.group(2) == "verb":
        gm.send(gm.key_of("attack"))
        assert gm.wait() == "menu"
    assert re.search(r"\d+ % to hit, about \d+ damage through", gm.screen), gm.screen[-1500:]
    gm.send("q")
    gm.child.close()


def test_the_demo_s_closing_hint_is_a_command_that_runs_as_typed(tmp_path: Path) -> None:
    """After ``make install`` the program is ``.venv/bin/trpg-arena`` (not on PATH): the hint repeats that."""
    import shlex
    import subprocess
    import sys

    program = Path(sys.executable).parent / "trpg-arena"
    r = subprocess.run([str(program), "demo", "--ruleset", "moonlit", "--seed", "2"], capture_output=True, text=True,
                       timeout=120, cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "COLUMNS": "100"})
    assert r.returncode == 0, r.stderr
    hint = re.search(r"play a whole fight as its GM: (.+?) autopilot moonlit/skirmish", r.stdout.replace("\n", " "))
    assert hint is not None and shlex.split(hint.group(1)) == [str(program)], r.stdout[-600:]


def test_a_step_full_of_odds_stays_one_line_a_choice_within_a_terminal() -> None:
    """Kiai's technique step at 80 columns (13 choices, each a single reattack with its odds): 14 lines."""
    from rich.console import Console

    from trpg_arena.experiments.table import screen
    from trpg_arena.table.menu import Menu
    from trpg_arena.table.odds import action_odds
    from trpg_arena.table.session import Session

    s = Session("kiai/skirmish", seed=1, pc="scripted", npc="scripted")
    s.run(max_decisions=15)
    menu = Menu(s.combat)
    odds = action_odds(s.combat, menu.legal)
    menu.choose(next(ch.key for ch in menu.step().choices if ch.label == "reattack"))
    console = Console(width=80, record=True)
    with console.capture() as shown:
        console.print(screen.menu_step(menu.step(), 80, odds))
    lines = shown.get().rstrip("\n").splitlines()
    assert len(lines) == 1 + len(menu.step().choices) <= 23, lines
    assert all(len(line.rstrip()) <= 80 for line in lines)
    assert sum(bool(re.search(r"technique \d+: .* \d+ % to land", line)) for line in lines) >= 5, lines


def test_the_terminal_report_says_when_damage_was_capped_at_the_hp_left(tmp_path: Path) -> None:
    gm = Gm("investigator/skirmish", "--pc", "scripted", "--npc", "scripted", "--no-review", "--seed", "3",
            db=tmp_path / "s.db", out=tmp_path)
    assert gm.wait() == "over"
    shown = gm.screen + str(gm.child.after)  # the report is printed between 'combat over' and its prompt
    gm.send("")
    assert gm.wait() == "eof"
    assert "damage capped at the HP left" in shown and \
        "harlow on knifeman: 10 (26 rolled, capped at the HP left)" in shown, shown[-1500:]
    log = next(tmp_path.glob("*-log.md")).read_text()
    assert "| harlow | knifeman | 10 (26 rolled, capped at the HP left) |" in log
