"""The GM's table loop (`GmTable`) driven by a scripted reader: what is put to the GM, and the lines it reads.

Each test builds a `Session` and plays it through `GmTable.play` as the terminal does, answering every
prompt from a script and keeping what the console printed (80 columns, as a terminal of that width).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable

from rich.console import Console

from trpg_arena.experiments.table.gm import GmTable, Quit
from trpg_arena.table.session import Pending, Session

Answer = Callable[[str, Pending | None], str]


def play(session: Session, answer: Answer, prompts: int = 40) -> str:
    """Play `session` at a table of 80 columns, `answer` giving each line typed; the console's text."""
    out = io.StringIO()
    console = Console(file=out, width=80, soft_wrap=False, color_system=None)
    asked = iter(range(prompts))

    def read(prompt: str) -> str:
        console.print(prompt, end="")
        if next(asked, None) is None:
            raise EOFError  # the GM closes the terminal: `Quit`
        line = answer(prompt, session.pending())
        console.print(line)
        return line

    try:
        GmTable(session, console, read).play()
    except Quit:
        pass
    return out.getvalue()


def test_an_npc_under_review_is_not_asked_the_routine_question_it_answers_as_usual() -> None:
    """README: a review seat whose proposal is the routine question's usual answer is not put to the GM."""
    s = Session("moonlit/skirmish", seed=3, pc="human", npc="review:scripted")  # as `autopilot` seats them
    reviewed: list[str] = []

    def answer(prompt: str, p: Pending | None) -> str:
        if prompt.endswith("confirm> ") and p is not None:
            reviewed.append(f"{p.decision.actor} {p.decision.step}")
            return ""
        return "1"  # a PC's choice: the first line of each step

    shown = play(s, answer, prompts=60)
    assert len(reviewed) > 10 and not [r for r in reviewed if r.endswith(" escape")], reviewed
    assert "try to escape, or stay?" not in shown
    npcs = {v.id for v in s.combat.combatants if v.side == "B"}
    routine = [r for r in s.records if r["source"] == "routine" and r["actor"] in npcs]
    assert routine and all(r["text"].endswith("stays") for r in routine), routine
    assert re.search(r"r1 (ghoul_1|ghoul_2|puppeteer|count): stays \(as usual: not asked\)", shown), shown[:3000]


def test_a_routine_answer_that_needs_dice_asks_for_them_before_anything_else() -> None:
    """With dice rolled at the table the NPC's routine 'stays' waits for the AP roll: the dice are asked first."""
    s = Session("moonlit/duel", seed=5, pc="scripted", npc="review:scripted", table_dice=True)
    prompts: list[str] = []

    def answer(prompt: str, p: Pending | None) -> str:
        prompts.append(prompt)
        if prompt.startswith("dice") and p is not None and p.dice is not None:
            return " ".join(["1"] * p.dice.count)
        return ""

    shown = play(s, answer, prompts=12)
    assert prompts[0].startswith("dice 2D6"), prompts  # was a confirm prompt that refused: dice are needed first
    assert "dice are needed first" not in shown and len(s.records) >= 3


def test_one_alternative_is_keyed_as_one() -> None:
    s = Session("moonlit/duel", seed=0, pc="scripted", npc="review:scripted")
    lines: list[str] = []

    def answer(prompt: str, p: Pending | None) -> str:
        if prompt.endswith("confirm> ") and p is not None and p.proposal is not None:
            lines.append(f"{len(p.proposal.alternatives)}")
        return ""

    shown = play(s, answer)
    assert "1" in lines, lines
    keys = " ".join(re.findall(r"^Enter confirm.*$", shown, re.MULTILINE))
    assert "· 1 alternative ·" in keys and "1-1 alternative" not in shown, keys


def help_lines(shown: str) -> list[str]:
    """The lines `?` printed: from the prompt it was typed at to the next prompt."""
    after = shown.split("confirm> ?\n")[1].splitlines()
    return after[:next(i for i, line in enumerate(after) if "confirm> " in line)]


def test_the_help_is_one_line_a_key_wrapped_between_words_within_80_columns() -> None:
    s = Session("moonlit/duel", seed=0, pc="scripted", npc="review:scripted")
    answers = iter(["?"])
    lines = help_lines(play(s, lambda prompt, p: next(answers, "q")))
    assert all(len(line) <= 80 for line in lines), lines
    help_text = "\n".join(lines)
    keys = [line.split()[0] for line in lines if not line.startswith(" ")]
    assert keys == ["Enter", "1,", "o", "words", "b", "u", "e", "t", "a", "r", "m", "?", "q"], lines
    whole = " ".join(help_text.split())
    assert "r asks PCs the routine questions too (escape: stay unless asked); r again: they answer as usual, " \
           "unasked" in whole, whole
    assert "o overrides the NPC with an action chosen in steps; or type words of the action you want instead" in whole


def test_the_help_leaves_out_r_where_the_rules_ask_no_routine_question() -> None:
    s = Session("kiai/duel", seed=0, pc="scripted", npc="review:scripted")
    answers = iter(["?"])
    keys = [line.split()[0] for line in help_lines(play(s, lambda prompt, p: next(answers, "q")))
            if not line.startswith(" ")]
    assert "r" not in keys and "m" in keys, keys
