"""Post-combat statistics of a replay: the report of `trpg_arena.table.stats`, plus what the page draws.

Who dealt and took what comes from `CombatStats` (the same numbers the terminal autopilot prints:
each loss put down to the combatant who struck for it, by the events' own account where it adds
up). Added here: per side what the other sides lost and how many of them were taken out, how
each decision was made (agent, confirmed, overridden, a person's: from a stored session's records),
and each side's HP after every decision (the chart's points: see `NOT_IN_THE_FIGHT`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any


def statistics(frames: list[dict[str, Any]], sides: list[str], report: dict[str, Any],
               records: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Totals per combatant and side, the decision sources, and each side's HP after every decision."""
    last = frames[-1]
    final = {c["id"]: c for c in last["combatants"]}
    decisions = Counter(f["actor"] for f in frames[1:] if f["actor"] is not None)
    took_out = Counter(fall["by"] for fall in report["falls"] if fall["by"] is not None)
    fell = Counter(f["side"] for f in report["fighters"] for fall in report["falls"] if fall["combatant"] == f["id"])
    rows = [{"id": f["id"], "name": f["name"], "label": final[f["id"]]["label"] if f["id"] in final else f["name"],
             "health": final[f["id"]]["health"] if f["id"] in final else "", "side": f["side"],
             "decisions": decisions[f["id"]],
             "damage_dealt": f["dealt"], "taken_out": took_out[f["id"]], "damage_taken": f["taken"],
             "healed": f["healed"], "hits": f["hits"], "misses": f["misses"], "edits": f.get("edits", 0),
             "hp": final[f["id"]]["hp"] if f["id"] in final else 0,
             "max_hp": final[f["id"]]["max_hp"] if f["id"] in final else f["max_hp"],
             "status": final[f["id"]]["status"] if f["id"] in final else "gone"} for f in report["fighters"]]
    by_side = []
    for side in sides:
        own = [r for r in rows if r["side"] == side]
        others = [r for r in rows if r["side"] != side]
        by_side.append({"side": side, "damage_dealt": sum(r["damage_taken"] for r in others),
                        "damage_taken": sum(r["damage_taken"] for r in own),
                        "taken_out": sum(n for s, n in fell.items() if s != side),
                        "decisions": sum(r["decisions"] for r in own), "combatants": len(own),
                        "standing": sum(1 for r in own if final.get(r["id"], {}).get("able"))})
    # a GM's edit has no side: it is counted on a row of its own
    sources = Counter((rec.get("side") or "GM", rec.get("source")) for rec in records or [])
    return {"result": last["result"], "over": last["over"], "rounds": last["round"], "decisions": len(frames) - 1,
            "edits": report.get("edits", 0),
            "start_round": frames[0]["round"], "combatants": rows, "sides": by_side,
            "by_source_and_target": report["by_source_and_target"], "per_round": report["per_round"],
            "falls": report["falls"],
            "sources": [{"side": side, "source": source, "count": n} for (side, source), n in sorted(
                sources.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1])))],
            "timeline": _timeline(frames, sides)}


# Who counts toward a side's HP on the chart: those in the fight. One not on the field (yet) counts for nothing
# (moonlit's puppet never summoned, a reinforcement still to come); one who left it (fled, or taken out by the
# GM) keeps its maximum but no longer its HP, so a side all down or gone reaches 0.
NOT_IN_THE_FIGHT = frozenset({"absent"})
LEFT_THE_FIGHT = frozenset({"fled"})


def _timeline(frames: list[dict[str, Any]], sides: list[str]) -> list[dict[str, Any]]:
    """Each side's standing HP (and its share of the maximum) after every decision: the chart's points."""
    points = []
    for f in frames:
        hp = dict.fromkeys(sides, 0)
        top = dict.fromkeys(sides, 0)
        for c in f["combatants"]:
            if c["side"] in hp and c["status"] not in NOT_IN_THE_FIGHT:
                hp[c["side"]] += 0 if c["status"] in LEFT_THE_FIGHT else max(0, c["hp"])
                top[c["side"]] += c["max_hp"]
        points.append({"n": f["n"], "round": f["round"], "hp": hp,
                       "share": {s: round(hp[s] / top[s], 4) if top[s] else 0.0 for s in sides}})
    return points
