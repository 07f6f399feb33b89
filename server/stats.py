"""Post-combat statistics from a replay's frames: who dealt and took what, how decisions were made, HP over time.

Read from the board state between decisions, so it works the same for every rule system. Exact:
hit points each combatant lost and regained, and per side what the other sides lost and how many
of them were taken out. Attributed: a combatant's damage dealt and take-downs are what its enemies
lost during its own decisions (its attacks and the reactions it chose); damage that lands during
the victim's side's decision (a counter-attack answering its attack) is counted for the sides only.
A stored session's records add how each decision was made (agent, confirmed, overridden, a person's).
"""

from __future__ import annotations

from collections import Counter
from typing import Any


def statistics(frames: list[dict[str, Any]], sides: list[str], records: list[dict[str, Any]] | None = None
               ) -> dict[str, Any]:
    """Totals per combatant and side, the decision sources, and each side's HP after every decision."""
    first, last = frames[0], frames[-1]
    side_of = {c["id"]: c["side"] for f in frames for c in f["combatants"]}
    names = {c["id"]: c["name"] for f in frames for c in f["combatants"]}
    rows: dict[str, dict[str, Any]] = {}

    def row(cid: str) -> dict[str, Any]:
        if cid not in rows:
            rows[cid] = {"id": cid, "name": names.get(cid, cid), "side": side_of.get(cid), "decisions": 0,
                         "damage_dealt": 0, "taken_out": 0, "damage_taken": 0, "healed": 0}
        return rows[cid]

    for cid in side_of:
        row(cid)
    for before, after in zip(frames, frames[1:]):
        old = {c["id"]: c for c in before["combatants"]}
        actor = after["actor"]
        if actor is not None:
            row(actor)["decisions"] += 1
        for c in after["combatants"]:
            prev = old.get(c["id"])
            if prev is None:
                continue
            change = c["hp"] - prev["hp"]
            if change < 0:
                row(c["id"])["damage_taken"] -= change
                if actor is not None and side_of.get(actor) != c["side"]:
                    row(actor)["damage_dealt"] -= change
            elif change > 0:
                row(c["id"])["healed"] += change
            if prev["able"] and not c["able"] and actor is not None and side_of.get(actor) != c["side"]:
                row(actor)["taken_out"] += 1
    final = {c["id"]: c for c in last["combatants"]}
    for cid, r in rows.items():
        end = final.get(cid)
        r["hp"], r["max_hp"] = (end["hp"], end["max_hp"]) if end else (0, 0)
        r["status"] = end["status"] if end else "gone"
    by_side: dict[str, dict[str, Any]] = {
        side: {"side": side, "damage_dealt": 0, "damage_taken": 0, "taken_out": 0, "decisions": 0, "standing": 0,
               "combatants": 0} for side in sides}
    fell = {cid for cid in rows if any(c["id"] == cid and c["able"] for c in first["combatants"])
            and not final.get(cid, {}).get("able")}
    for r in rows.values():
        totals = by_side.get(r["side"])
        if totals is None:
            continue
        totals["damage_taken"] += r["damage_taken"]
        totals["decisions"] += r["decisions"]
        totals["combatants"] += 1
        totals["standing"] += 1 if final.get(r["id"], {}).get("able") else 0
        for side, other in by_side.items():  # what the other sides lost, whoever's decision it was
            if side != r["side"]:
                other["damage_dealt"] += r["damage_taken"]
                other["taken_out"] += r["id"] in fell
    sources = Counter((rec.get("side"), rec.get("source")) for rec in records or [])
    return {"result": last["result"], "over": last["over"], "rounds": last["round"], "decisions": len(frames) - 1,
            "start_round": first["round"], "combatants": list(rows.values()), "sides": list(by_side.values()),
            "sources": [{"side": side, "source": source, "count": n} for (side, source), n in sorted(
                sources.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1])))],
            "timeline": _timeline(frames, sides)}


def _timeline(frames: list[dict[str, Any]], sides: list[str]) -> list[dict[str, Any]]:
    """Each side's total HP (and its share of the maximum) after every decision: the chart's points."""
    points = []
    for f in frames:
        hp = dict.fromkeys(sides, 0)
        top = dict.fromkeys(sides, 0)
        for c in f["combatants"]:
            if c["side"] in hp:
                hp[c["side"]] += max(0, c["hp"])
                top[c["side"]] += c["max_hp"]
        points.append({"n": f["n"], "round": f["round"], "hp": hp,
                       "share": {s: round(hp[s] / top[s], 4) if top[s] else 0.0 for s in sides}})
    return points
