"""Counted nouns for what the GM reads: "1 hex", "2 hexes", never "1 hexes"."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` with `noun` in the number it takes; `plural` where adding an "s" is wrong ("hex", "hexes")."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
