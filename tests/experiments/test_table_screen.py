"""What the GM reads at the terminal: whole menu lines, a letter per combatant, wound levels in words.

Driven through ``trpg-arena autopilot`` in an 80 x 24 pseudo-terminal (see `Gm`).
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

from tests.experiments.test_autopilot import Gm, only_session
from tests.experiments.test_autopilot_setup import CLI, autopilot
from tests.table.test_menu import biggest_decision
from trpg_arena.table.menu import Menu


def test_menu_lines_use_the_terminal_width_and_tell_the_actions_apart(tmp_path: Path) -> None:
    gm = Gm("investigator/skirmish", "--npc", "scripted", "--no-review", "--seed", "1", db=tmp_path / "s.db",
            out=tmp_path)
    assert gm.wait() == "menu"
    gm.send(gm.key_of("cast"))
    assert gm.wait() == "menu"
    gm.send(gm.key_of("walsh"))
    assert gm.wait() == "menu"
    lines = re.findall(r"^\s*\d+ (casts mend_flesh on walsh.*?)\s*$", gm.screen, re.MULTILINE)
    assert len(lines) == 11 and len(set(lines)) == 11, lines  # not eleven times 'casts mend_flesh on wal…'
    assert "casts mend_flesh on walsh, stepping SE afterwards" in lines and not any("…" in x for x in lines)
    gm.send("q")
    gm.child.close()


def test_kiai_shows_a_letter_per_combatant_and_wound_levels_in_words(tmp_path: Path) -> None:
    gm = Gm("kiai/skirmish", "--pc", "scripted", "--npc", "scripted", "--no-review", "--seed", "1",
            db=tmp_path / "s.db", out=tmp_path)
    assert gm.wait() == "over"
    roster = re.findall(r"^.*?[> ] ([A-Za-z?]) (\w+)\s+(unhurt|light wound|moderate wound|serious wound|"
                        r"incapacitated|dead)", gm.screen.split("combat over")[0][-2500:], re.MULTILINE)
    ids = {cid for _, cid, _ in roster}
    assert {"gorza", "goblin_a", "goblin_b", "kaede"} <= ids, gm.screen[-2500:]
    letters = [letter for letter, _, _ in roster]
    assert len(set(letters)) == len(letters), roster  # gorza, goblin_a and goblin_b are no longer all 'g'
    assert not re.search(r"\b\d/5\b", gm.screen.split("combat over")[0][-2500:])  # no '4/5' for a wound level
    gm.send("")
    gm.child.close()


def test_a_new_session_draws_its_seed_names_the_encounter_as_typed_and_hints_a_resume_that_works(
        tmp_path: Path) -> None:
    db = tmp_path / "my sessions.db"
    first = autopilot("moonlit/skirmish", "--pc", "scripted", db=db)
    second = autopilot("moonlit/skirmish", "--pc", "scripted", db=db)
    assert first.returncode == 0 and second.returncode == 0, first.stderr
    seeds = [re.search(r"\(seed (\d+)\)", run.stdout) for run in (first, second)]
    assert seeds[0] and seeds[1] and seeds[0].group(1) != seeds[1].group(1)  # not the same fight every time
    assert "moonlit_alley" not in first.stdout and "· skirmish ·" in first.stdout
    hint = re.search(r"continue with (.*)$", first.stdout, re.MULTILINE)
    assert hint is not None
    words = shlex.split(hint.group(1))
    assert words[:3] == ["trpg-arena", "autopilot", "--resume"] and "--db" in words
    again = subprocess.run([*CLI, *words[1:]], capture_output=True, text=True, input="q\n", timeout=120,
                           env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"})
    assert again.returncode == 0 and "resumed session" in again.stdout and "moonlit/skirmish" in again.stdout
    listed = autopilot("--list", db=db)
    assert listed.stdout.count("moonlit/skirmish") == 2 and "moonlit_alley" not in listed.stdout


def test_a_charge_marks_the_squares_it_ends_on(tmp_path: Path) -> None:
    gm = Gm("reincarnator/skirmish", "--npc", "scripted", "--no-review", "--seed", "1", db=tmp_path / "s.db",
            out=tmp_path)
    assert gm.wait() == "menu"
    gm.send(gm.key_of("charge"))
    assert gm.wait() == "menu"
    gm.send(gm.key_of("brute"))
    while gm.wait() == "menu" and gm.match is not None and gm.match.group(2).startswith("option"):
        gm.send("1")
    screen = gm.screen
    ends = {tuple(map(int, m)) for m in re.findall(r"end (\d+),(\d+)", screen)}
    if gm.match is not None and gm.match.group(2) in ("row", "destination"):  # the squares themselves are listed
        ends |= {tuple(map(int, m)) for m in re.findall(r"^\s*\d+ (\d+),(\d+)\b", screen, re.MULTILINE)}
    board = screen[screen.rindex("0123456789"):screen.rindex("choose ")]
    rows = {int(n): text for n, text in re.findall(r"^\s?(\d+) (\S+)", board, re.MULTILINE)}
    stars = {(x, y) for y, text in rows.items() for x, ch in enumerate(text) if ch == "*"}
    assert ends and stars == ends, (sorted(stars), sorted(ends), board[:900])
    gm.send("q")
    gm.child.close()


def test_the_reports_are_written_as_the_combat_ends_and_the_log_reads_plainly(tmp_path: Path) -> None:
    out = tmp_path / "out"
    gm = Gm("reincarnator/skirmish", "--pc", "scripted", "--npc", "scripted", "--no-review", "--seed", "1",
            db=tmp_path / "s.db", out=out)
    assert gm.wait() == "over"
    written = sorted(p.name for p in out.glob("*"))  # before Enter: a table closed here loses nothing
    assert [n.rsplit("-", 1)[1] for n in written] == ["events.jsonl", "log.md", "stats.json"], written
    gm.child.kill(9)
    gm.child.close(force=True)
    (log,) = out.glob("*-log.md")
    text = log.read_text(encoding="utf-8")
    assert "\\[" not in text and "-\\>" not in text and re.search(r"dice: \[\d+(,\d+)*\]", text)


def test_a_label_typed_as_shown_is_chosen_and_unattended_npcs_are_stored(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    gm = Gm("investigator/skirmish", "--npc", "scripted", "--seed", "1", db=db, out=tmp_path)
    while gm.wait() == "confirm":
        gm.send("")
    assert gm.kind == "menu" and gm.match is not None and gm.match.group(2) == "verb"
    gm.send("cast")  # the label as the menu shows it, not a number
    assert gm.wait() == "menu" and gm.match is not None and gm.match.group(2) == "target", gm.screen[-600:]
    gm.send("a")  # NPCs unattended: stored at once, no `t` needed after it
    gm.wait()
    gm.send("q")
    gm.child.close()
    assert only_session(db).autorun


def test_a_typed_square_matches_only_itself() -> None:
    menu = Menu(biggest_decision("reincarnator/skirmish"))
    moves = [a for a in menu.legal if a.verb == "move"]
    short = next(a for a in moves if a.dest[0] < 10 and any(b.dest == (a.dest[0] + 10, a.dest[1]) for b in moves))
    assert menu.filter(f"move {short.dest[0]},{short.dest[1]}") == short  # not also the square ten to the right


def test_a_pc_attack_shows_the_odds_an_npc_proposal_cites(tmp_path: Path) -> None:
    gm = Gm("reincarnator/skirmish", "--npc", "scripted", "--no-review", "--seed", "1", db=tmp_path / "s.db",
            out=tmp_path)
    assert gm.wait() == "menu"
    gm.send(gm.key_of("ranged attack"))
    while gm.wait() == "menu" and gm.match is not None and gm.match.group(2) != "action":
        gm.send(gm.key_of("brute") if gm.match.group(2) == "target" else "1")
    assert re.search(r"brute with pistol +\d+ % to hit, 10 dice \(12 - 2 defence\)", gm.screen), gm.screen[-1200:]
    gm.send("q")
    gm.child.close()


def test_a_ppo_proposal_reads_why_then_its_notes(tmp_path: Path) -> None:
    gm = Gm("kiai/skirmish", "--pc", "scripted", "--npc", "ppo", "--seed", "3", db=tmp_path / "s.db", out=tmp_path)
    while True:  # confirm every proposal (the PCs' scripted ones too) until the ppo policy proposes
        assert gm.wait() == "confirm", gm.screen[-2000:]
        if "review:ppo" in gm.screen:
            break
        gm.send("")
    shown = gm.screen.split("review:ppo")[-1]
    assert re.search(r"^  because .*: the kiai policy gives it\s+\d+%", shown, re.MULTILINE), shown
    assert re.search(r"^  · next best: ", shown, re.MULTILINE), shown
    assert re.search(r"^  · the scripted policy (agrees|would )", shown, re.MULTILINE), shown
    assert "because next best" not in gm.screen and "because the scripted" not in gm.screen
    gm.send("q")
    gm.child.close()


def test_a_proposal_shows_the_odds_its_reasons_do_not_give() -> None:
    from rich.console import Console

    from trpg_arena.experiments.table.screen import proposal
    from trpg_arena.table.choices import proposal_odds
    from trpg_arena.table.session import Session

    def shown(session: Session) -> str:
        pending = session.pending()
        assert pending is not None
        console = Console(record=True, width=200)
        console.print(proposal(session, pending))
        return console.export_text()

    for npc, cited in (("review:ppo", False), ("review:scripted", True)):
        session = Session("moonlit/duel", seed=2, pc="scripted", npc=npc)
        for _ in range(40):
            pending = session.pending()
            assert pending is not None and pending.proposal is not None
            odds = proposal_odds(session.combat, pending.proposal).get(pending.proposal.action)
            if odds is not None:
                break
            session.confirm()
        assert odds is not None, f"{npc} proposed no attack with odds"
        first = shown(session).splitlines()[0]
        # a policy's reasons give only its probability: the odds go beside the action; scripted reasons cite them
        assert (f"· {odds}" in first) is not cited, first
