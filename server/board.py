"""The battlefield as the page draws it: places with drawing positions and terrain, and keys that name them.

A place is keyed by text the same way everywhere (board, tokens, actions' destinations): a zone by its
name (``A_front``), a square or hex by ``"x,y"``. Positions are the battlefield's own ``pos`` (square
cells at integer ``x, y``; odd-r hex centres shifted half a hex on odd rows; zones in a line), so the
page needs only the board kind to draw every rule system.
"""

from __future__ import annotations

from typing import Any

from trpg_arena.rules import Combat, CombatantView, RuleSystemInfo
from trpg_arena.table.choices import node_key

# node attributes worth drawing or naming in a tooltip; the rest are rules data
SHOWN_ATTRS = ("terrain", "cost", "impassable", "blocked", "blocks_los", "cover", "door", "exit", "side", "row")


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def board_json(combat: Combat) -> dict[str, Any]:
    """Every place of the battlefield with its drawing position and terrain, plus the board kind and size."""
    bf = combat.battlefield
    places = []
    for node, attrs in bf.graph.nodes(data=True):
        x, y = attrs.get("pos", (0, 0))
        place: dict[str, Any] = {"key": node_key(node), "x": x, "y": y}
        for name in SHOWN_ATTRS:
            if name in attrs:
                place[name] = _jsonable(attrs[name])
        obj = attrs.get("object")
        if isinstance(obj, dict):
            place["object"] = str(obj.get("name", "object"))
        places.append(place)
    links = [[node_key(a), node_key(b)] for a, b in bf.graph.edges] if bf.kind == "zones" else []
    return {"kind": bf.kind, "width": bf.width, "height": bf.height, "places": places, "links": links,
            "sides": combat.sides, "title": combat.system.info.title, "ruleset": combat.system.info.id}


def combatant_json(view: CombatantView, info: RuleSystemInfo | None = None, label: str | None = None
                   ) -> dict[str, Any]:
    """A combatant as the page shows it: where (by key), health, whether it may act, status and conditions.

    `health` is what to print for its health (``7/12``, or on a wound track ``moderate wound``); `label`
    the name to show, never shared with another combatant (see `labels`).
    """
    return {"id": view.id, "name": view.name, "label": label or view.name or view.id, "side": view.side,
            "kind": view.kind, "place": node_key(view.node), "hp": view.hp, "max_hp": view.max_hp,
            "health": info.health_text(view) if info is not None else f"{view.hp}/{view.max_hp}",
            "able": view.able, "status": view.status, "conditions": list(view.conditions),
            "condition_texts": [info.condition_text(k) if info is not None else k.replace("_", " ")
                                for k in view.conditions]}  # as a GM reads them


def combatants_json(combat: Combat) -> list[dict[str, Any]]:
    """Every combatant as the page shows it, with a label of its own and its health in the system's terms."""
    views = combat.combatants
    names = labels(views)
    info = combat.system.info
    return [combatant_json(v, info, names[v.id]) for v in views]


def labels(views: list[CombatantView]) -> dict[str, str]:
    """A name per combatant that people can tell apart and read.

    The given name, with the id added where two combatants share a name ("Ghoul (ghoul_2)"); the id
    alone where the name is missing or in a script a browser may have no font for (a summon's
    ``name_zh``, drawn as empty boxes).
    """
    count: dict[str, int] = {}
    for v in views:
        count[v.name] = count.get(v.name, 0) + 1
    out = {}
    for v in views:
        name = v.name or v.id
        if not all(ord(ch) < 0x2E80 for ch in name):  # CJK and later blocks: the id is readable everywhere
            name = v.id
        elif count.get(v.name, 0) > 1 and v.name != v.id:
            name = f"{v.name} ({v.id})"
        out[v.id] = name
    return out


def turn_order(combat: Combat) -> list[str]:
    """The combatants in the rule system's order this round (its state's ``order``), others on the map last.

    Every system keeps the round's order as a list of ids in its state; before the first initiative
    roll it may still be empty, and the roster order stands in. Combatants neither in the order nor on
    the map (a summon not yet called) are left out.
    """
    views = combat.combatants
    ids = {v.id for v in views}
    order = getattr(combat.state, "order", None)
    listed = [cid for cid in order if cid in ids] if isinstance(order, list) else []
    return listed + [v.id for v in views if v.id not in listed and v.node is not None]
