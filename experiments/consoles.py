"""The command line's consoles: rich on a terminal, and in a log (a pipe, a file, CI) room for whole tables.

Rich lays a table out in 80 columns when its output is not a terminal and cuts what does not fit with an
ellipsis, numbers included (``28,3…``): a benchmark or a training run read from a CI log lost its figures. Off a
terminal, and unless ``COLUMNS`` says otherwise, the consoles are wide enough for every table the commands print;
prose is then never wrapped (``soft_wrap``): a line of a log stays one line, so a wide console changes nothing else.
On a terminal prose wraps between words at the terminal's width (the terminal itself would cut a word in two).
"""

from __future__ import annotations

import os
import sys

from rich.console import Console

LOG_WIDTH = 200  # columns off a terminal: the widest table (`train-fps --sections`) fits


def command_console(stderr: bool = False) -> Console:
    """A console for a command's output (stdout, or stderr for progress and errors)."""
    stream = sys.stderr if stderr else sys.stdout
    terminal = stream.isatty()
    width = None if terminal or os.environ.get("COLUMNS") else LOG_WIDTH
    return Console(stderr=stderr, highlight=False, soft_wrap=not terminal, width=width)
