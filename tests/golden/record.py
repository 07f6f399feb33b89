"""Record golden playthroughs: ``make golden`` (or ``python -m tests.golden.record [ruleset ...]``).

Re-record only when a rule deliberately changes, and bump that system's ``env_version`` in its
`RuleSystemInfo` in the same commit. Each file is one combat: a header line (encounter, seed,
agents, env version) and then every event as a canonical JSON line.

``python -m tests.golden.record --rewrite [ruleset ...]`` replays each file's own decisions and writes the
events anew, with the system's ``env_version`` now: for a change of wording, or a rule change these games never
reach, where playing the agents again would record other games (the agents improve; the rules' events are what
the files pin). It refuses a file whose replayed events are other kinds than the recorded ones.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from trpg_arena.agents import agent_names
from trpg_arena.experiments.runner import play_game
from trpg_arena.rules import RULESETS, builtin_encounters

HERE = Path(__file__).parent


def plays(rid: str) -> list[tuple[str, int, list[str]]]:
    """The recorded combats of a rule system: (encounter, seed, agents)."""
    names = builtin_encounters(RULESETS[rid])
    smart = "scripted" if "scripted" in agent_names(rid) else "random"
    out = [(f"{rid}/duel", 1, ["random", "random"]), (f"{rid}/skirmish", 2, [smart, "random"]),
           (f"{rid}/skirmish", 3, ["random", smart])]
    return [p for p in out if p[0] in names]


def path_for(encounter: str, seed: int, agents: list[str]) -> Path:
    """Where a golden file lives: the system's own ``golden/`` folder if it has one, else ``tests/golden/<id>``."""
    rid, name = encounter.split("/")
    own = RULESETS[rid].info.data_dir / "golden"
    return (own if own.is_dir() else HERE / rid) / f"{name}-seed{seed}-{'-'.join(agents)}.jsonl"


def record(rid: str) -> list[Path]:
    """Record every golden file of a rule system, and remove its files of plays no longer recorded.

    The line-ups follow the system's agents (scripted where it has one), so a system that gains an agent gets
    other files; the old ones would otherwise stay and fail as the rules change.
    """
    written = []
    for encounter, seed, agents in plays(rid):
        combat, _ = play_game(encounter, agents, seed)
        header = {"encounter": encounter, "seed": seed, "agents": agents,
                  "env_version": RULESETS[rid].info.env_version, "result": combat.result}
        p = path_for(encounter, seed, agents)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(header, sort_keys=True) + "\n" + "".join(e.json_line() + "\n" for e in combat.log),
                     encoding="utf-8")
        written.append(p)
    for folder in {p.parent for p in written}:
        for stale in sorted(set(folder.glob("*.jsonl")) - set(written)):
            stale.unlink()
            print(f"removed {stale} (a play no longer recorded)")
    return written


def golden_files(rid: str) -> list[Path]:
    """A rule system's golden files: in its own ``golden/`` folder if it has one, else ``tests/golden/<id>``."""
    own = RULESETS[rid].info.data_dir / "golden"
    return sorted((own if own.is_dir() else HERE / rid).glob("*.jsonl"))


def rewrite(rid: str) -> list[Path]:
    """Replay each golden file of a rule system from its recorded decisions and write its events as they read now."""
    from trpg_arena.rules import Action, Combat

    written = []
    for p in golden_files(rid):  # the files there are, whatever line-ups recorded them
        header, *events = p.read_text(encoding="utf-8").splitlines()
        meta = json.loads(header)
        combat = Combat(meta["encounter"], seed=meta["seed"])
        for line in events:
            event = json.loads(line)
            if event["kind"] == "decision":
                combat.act(Action.from_json(event["data"]["action"]))
        if len(combat.log) != len(events) or [json.loads(e.json_line())["kind"] for e in combat.log] != [
                json.loads(line)["kind"] for line in events]:
            raise SystemExit(f"{p}: the replayed events are not the recorded ones (a rule changed: record anew)")
        header = json.dumps(meta | {"env_version": RULESETS[rid].info.env_version}, sort_keys=True)
        p.write_text(header + "\n" + "".join(e.json_line() + "\n" for e in combat.log), encoding="utf-8")
        written.append(p)
    return written


if __name__ == "__main__":
    again = "--rewrite" in sys.argv[1:]
    for rid in [a for a in sys.argv[1:] if a != "--rewrite"] or list(RULESETS):
        for p in (rewrite if again else record)(rid):
            print(f"{'rewritten' if again else 'recorded'} {p}")
