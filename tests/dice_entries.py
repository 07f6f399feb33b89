"""Dice typed by hand in tests: random faces a request accepts, and the faces a logged event shows."""

from __future__ import annotations

import random
from typing import Any


def log_dice(data: dict[str, Any]) -> list[int]:
    """The faces an event's data shows, in the order they were rolled."""
    out: list[int] = []
    for key in ("d10", "die", "face"):
        if isinstance(data.get(key), int):
            out.append(data[key])
    if isinstance(data.get("faces"), dict):  # a tie-break: one die per side, in rolling order
        out.extend(data["faces"].values())
    for key in ("dice", "rolls", "explosions"):
        value = data.get(key)
        stack = [value] if isinstance(value, list) else []
        flat: list[int] = []
        while stack:  # batches of batches, flattened left to right
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(reversed(item))
            elif isinstance(item, int):
                flat.append(item)
        out.extend(flat)
    return out


def typed_faces(request: dict[str, Any], rng: random.Random) -> tuple[str, list[int]]:
    """Random faces a request accepts: what is typed, and the engine faces it stands for."""
    if request["what"] == "tens":
        tens = [rng.randrange(10) * 10 for _ in range(request["count"])]
        return " ".join(f"{t:02d}" for t in tens), [t // 10 or 10 for t in tens]
    faces = [rng.randint(1, request["sides"]) for _ in range(request["count"])]
    typed = [0 if f == request["sides"] and request["sides"] in (10, 100) and rng.random() < 0.5 else f for f in faces]
    return " ".join(map(str, typed)), faces
