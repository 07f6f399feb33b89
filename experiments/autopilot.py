"""GM autopilot: PC decisions typed at the terminal (or taken by an agent), NPC decisions by an agent.

Every event (every roll) is printed as it happens, and the combat is saved after every decision,
so a crash or Ctrl-C loses nothing: ``--resume`` continues from the save file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from rich.console import Console
from rich.prompt import IntPrompt

from trpg_arena.agents import make_agent
from trpg_arena.rules import Combat, SnapshotError, load_encounter


def _save(combat: Combat, path: Path) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(combat.snapshot()), encoding="utf-8")
    os.replace(tmp, path)


def load_save(path: Path) -> Combat:
    """Restore a combat from an autopilot save file (`SnapshotError` if it is corrupt)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise SnapshotError(f"{path}: cannot read the save file ({e})") from None
    return Combat.restore(data)


def run_autopilot(encounter: str, npc: str, pc: str, seed: int, save: Path, resume: bool, console: Console) -> Combat:
    """Run the autopilot loop until the combat ends."""
    if resume:
        combat = load_save(save)
        console.print(f"resumed from {save} at round {combat.round}")
    else:
        combat = Combat(load_encounter(encounter), seed=seed)
    rid = combat.system.info.id
    npc_agent = make_agent(npc, rid, seed=seed)
    pc_agent = None if pc == "human" else make_agent(pc, rid, seed=seed + 1)
    shown = 0
    for ev in combat.log:
        console.print(f"r{ev.round} {ev.text}")
        shown += 1
    while not combat.over:
        d = combat.decision
        assert d is not None
        is_pc = next((v.kind for v in combat.combatants if v.id == d.actor), "npc") == "pc"
        if is_pc and pc_agent is None:
            legal = combat.legal_actions()
            console.print(f"[bold]{d.actor}[/bold] ({d.step}) {d.prompt}")
            for i, a in enumerate(legal):
                console.print(f"  {i:>3}: {combat.system.describe(combat, a)}")
            choice = IntPrompt.ask("choice", console=console, choices=[str(i) for i in range(len(legal))],
                                   show_choices=False)
            action = legal[choice]
        else:
            action = (pc_agent if is_pc else npc_agent).act(combat)  # type: ignore[union-attr]
        combat.act(action)
        for ev in combat.log[shown:]:
            console.print(f"r{ev.round} {ev.text}")
        shown = len(combat.log)
        _save(combat, save)
    console.print(f"[bold]result:[/bold] {combat.result}")
    return combat
