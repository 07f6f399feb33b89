"""Rendering any rule system's battlefield: a text map (``ansi``) and a picture (``rgb_array``)."""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw

from trpg_arena.rules import Combat

SIDE_COLOURS = [(52, 120, 246), (230, 70, 60), (60, 170, 90), (200, 150, 40)]
TERRAIN_COLOURS = {"open": (235, 232, 222), "difficult": (196, 176, 132), "wall": (70, 70, 70),
                   "obstacle": (120, 110, 100), "blocked": (70, 70, 70), "water": (140, 180, 220)}


def map_letters(combat: Combat) -> dict[str, str]:
    """One letter per combatant, never shared: upper case for the first side and every other, lower for the rest.

    The id's first letter if it is free, else its last (``goblin_a``, ``goblin_b`` -> ``a``, ``b``), else its
    other letters, else any free one; ``x`` is kept for those out of the fight. Given in roster order, so a
    combatant keeps its letter when others arrive later.
    """
    sides = combat.sides
    taken: set[str] = set()
    out: dict[str, str] = {}
    for v in combat.combatants:
        upper = sides.index(v.side) % 2 == 0
        word = [ch for ch in v.id if ch.isalpha()]
        wanted = [*word[:1], *word[-1:], *word[1:-1], *"abcdefghijklmnopqrstuvwyz"]
        for ch in wanted:
            letter = ch.upper() if upper else ch.lower()
            if letter not in taken and letter.lower() != "x":
                break
        else:
            letter = "?"
        taken.add(letter)
        out[v.id] = letter
    return out


def _marks(combat: Combat) -> dict[object, list[str]]:
    marks: dict[object, list[str]] = {}
    letters = map_letters(combat)
    for v in combat.combatants:
        if v.node is None:
            continue
        marks.setdefault(v.node, []).append(letters[v.id] if v.able else "x")
    return marks


def map_lines(combat: Combat, overlay: dict[object, str] | None = None) -> list[str]:
    """The map alone: a zone per row, or a grid row per line (a cell per character; hex rows staggered).

    Combatants show as their letter (`map_letters`: upper case for the first side and every other, lower
    for the rest, ``x`` when out); `overlay` draws other marks on empty cells (e.g. reachable squares); the
    other cells show what is there (`ground_marks`, explained by `map_legend`).
    """
    bf = combat.battlefield
    marks = _marks(combat)
    lines: list[str] = []
    if bf.kind == "zones":
        for node in bf.graph.nodes:
            names = [v.id for v in combat.combatants if v.node == node]
            lines.append(f"[{node:>8}] " + " ".join(names))
        return lines
    ground = ground_marks(combat)
    for y in range(bf.height):
        row = " " if bf.kind == "hex" and y % 2 else ""
        for x in range(bf.width):
            node = (x, y)
            m = marks.get(node)
            if m:
                row += m[0]
            elif overlay and node in overlay:
                row += overlay[node]
            else:
                row += ground[node]
            row += " " if bf.kind == "hex" else ""
        lines.append(row)
    return lines


# what an empty cell shows, by what is on it: objects and doors first (a crate or a door stands on open ground)
GROUND_MARKS = {"object": "%", "closed door": "+", "open door": "'", "open": ".", "difficult": ",",
                "climbable": "^", "gap": "_", "water": "~"}
GROUND_WORDS = {"%": "an object ({names})", "+": "a closed door", "'": "an open door", ",": "difficult ground",
                "^": "climbable", "_": "a gap", "~": "water", "#": "a wall or obstacle"}


def ground_marks(combat: Combat) -> dict[object, str]:
    """Each cell's mark with nobody on it: objects, doors (as they are now), terrain; ``#`` what no one enters."""
    bf = combat.battlefield
    doors = _doors_now(combat)
    out: dict[object, str] = {}
    for node, attrs in bf.graph.nodes(data=True):
        door = doors.get(node, attrs.get("door"))
        if attrs.get("object") is not None:
            out[node] = GROUND_MARKS["object"]
        elif door in ("open", "closed"):
            out[node] = GROUND_MARKS[f"{door} door"]
        else:
            out[node] = GROUND_MARKS.get(attrs.get("terrain", "open"), "#")
    return out


def _doors_now(combat: Combat) -> dict[object, str]:
    """The doors' state now where the rules keep it (reincarnator's ``doors``, ``"x,y"`` -> open or closed)."""
    doors = getattr(combat.state, "doors", None)
    if not isinstance(doors, dict):
        return {}
    out: dict[object, str] = {}
    for key, door in doors.items():
        x, _, y = str(key).partition(",")
        if x.lstrip("-").isdecimal() and y.lstrip("-").isdecimal():
            out[(int(x), int(y))] = door
    return out


def map_legend(combat: Combat) -> str | None:
    """What the map's marks other than open ground mean, those on this map: ``% an object (crate, barrel) · ...``."""
    bf = combat.battlefield
    if bf.kind == "zones":
        return None
    marks = ground_marks(combat)
    names = sorted({str(attrs["object"].get("name", "object")) for _, attrs in bf.graph.nodes(data=True)
                    if isinstance(attrs.get("object"), dict)})
    shown = [m for m in GROUND_WORDS if m in marks.values()]
    if not shown:
        return None
    return " · ".join(f"{m} {GROUND_WORDS[m].format(names=', '.join(names))}" for m in shown)


def numbered_map(combat: Combat, overlay: dict[object, str] | None = None) -> str:
    """`map_lines` with column and row numbers on grids, so squares can be named as ``x,y`` (zones stay as they are)."""
    bf = combat.battlefield
    lines = map_lines(combat, overlay)
    if bf.kind == "zones":
        return "\n".join(lines)
    step = 2 if bf.kind == "hex" else 1
    header = "   " + "".join(f"{x % 10:<{step}}" for x in range(bf.width))
    return "\n".join([header, *(f"{y:>2} {line}" for y, line in enumerate(lines))]).rstrip()


def render_ansi(combat: Combat, last_events: int = 8) -> str:
    """A text picture: the map (zones as rows, grids as characters), the roster and the latest events."""
    lines = [f"{combat.system.info.title} - {combat.encounter.encounter} - round {combat.round} ({combat.phase})"]
    lines += ["  " + line for line in map_lines(combat)]
    for v in combat.combatants:
        cond = f" [{', '.join(v.conditions)}]" if v.conditions else ""
        lines.append(f"  {v.side}:{v.id:<14} hp {v.hp:>3}/{v.max_hp:<3} {v.status}{cond}")
    if combat.over:
        lines.append(f"  result: {combat.result}")
    elif combat.decision is not None:
        lines.append(f"  decision: {combat.decision.actor} ({combat.decision.step})")
    for ev in combat.log[-last_events:]:
        lines.append(f"  > {ev.text}")
    return "\n".join(lines) + "\n"


def render_rgb(combat: Combat, cell: int = 32) -> np.ndarray:
    """An RGB picture of the battlefield with each combatant as a disc in its side's colour and an hp bar."""
    bf = combat.battlefield
    nodes = bf.graph.nodes
    xs = [nodes[n]["pos"][0] for n in nodes]
    ys = [nodes[n]["pos"][1] for n in nodes]
    w = int((max(xs) + 1.5) * cell) + 1
    h = int((max(ys) + 1.5) * cell) + 1
    if bf.kind == "zones":
        h = 4 * cell
    img = Image.new("RGB", (w, h), (250, 250, 250))
    draw = ImageDraw.Draw(img)
    for n in nodes:
        x, y = nodes[n]["pos"]
        colour = TERRAIN_COLOURS.get(nodes[n].get("terrain", "open"), (150, 150, 150))
        if nodes[n].get("impassable"):
            colour = TERRAIN_COLOURS["wall"]
        if bf.kind == "zones":
            draw.rectangle([x * cell + 2, 2, (x + 1) * cell - 2, h - 3], fill=colour, outline=(90, 90, 90))
        elif bf.kind == "hex":  # pointy-top hexagon around the cell centre (odd-r layout: pos is the centre grid)
            cx, cy = x * cell + cell / 2, y * cell + cell / 2
            r = cell / math.sqrt(3)
            corners = [(cx + r * math.cos(math.radians(60 * k - 30)), cy + r * math.sin(math.radians(60 * k - 30)))
                       for k in range(6)]
            draw.polygon(corners, fill=colour, outline=(200, 200, 200))
        else:
            draw.rectangle([x * cell, y * cell, (x + 1) * cell - 1, (y + 1) * cell - 1], fill=colour,
                           outline=(200, 200, 200))
    sides = combat.sides
    stacked: dict[object, int] = {}
    for v in combat.combatants:
        if v.node is None or v.node not in nodes:
            continue
        x, y = nodes[v.node]["pos"]
        k = stacked.get(v.node, 0)
        stacked[v.node] = k + 1
        cx = x * cell + cell // 2
        cy = (y * cell + cell // 2) if bf.kind != "zones" else (8 + k * 10)
        r = cell // 3 if bf.kind != "zones" else 4
        colour = SIDE_COLOURS[sides.index(v.side) % len(SIDE_COLOURS)] if v.able else (110, 110, 110)
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=colour, outline=(0, 0, 0))
        if bf.kind != "zones":
            draw.text((cx - r + 2, cy - 5), v.id[:2], fill=(255, 255, 255))
        frac = max(0.0, min(1.0, v.hp / v.max_hp if v.max_hp else 0.0))
        draw.rectangle([cx - r, cy + r + 1, cx - r + int(2 * r * frac), cy + r + 2], fill=(40, 180, 40))
    return np.asarray(img, dtype=np.uint8)
