"""A tiny rule system used only by kernel tests: two duellists take turns hitting on a d6 of 4+.

It exercises the kernel contract (state dataclass, advance/legal/apply, auto-resolve, events,
snapshot) without depending on any real rule system.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from trpg_arena.rules import (
    Action,
    BaseState,
    Battlefield,
    Combat,
    CombatantView,
    Decision,
    EncounterBase,
    Outcome,
    RuleSystem,
    RuleSystemInfo,
    StrictModel,
    Termination,
    zone_line,
)


class ToyCombatant(StrictModel):
    id: str
    side: str
    hp: int = Field(3, ge=1, le=20)


class ToyOptions(StrictModel):
    round_cap: int = Field(10, ge=1)


class ToyEncounter(EncounterBase):
    options: ToyOptions = Field(default_factory=ToyOptions)
    combatants: list[ToyCombatant] = Field(min_length=2)


@dataclass
class ToyState(BaseState):
    hp: dict[str, int] = field(default_factory=dict)
    turn: int = 0


class ToySystem(RuleSystem):
    info = RuleSystemInfo(id="toy", title="Toy duel", prefix="TOY", dice="1D6", board="zones",
                          encounter=ToyEncounter, options=ToyOptions, env_name="Toy", data_dir=Path(__file__).parent)
    state_type = ToyState
    combatant_features = 1
    global_features = 1

    def build_battlefield(self, encounter: EncounterBase) -> Battlefield:
        return zone_line(["field"])

    def new_state(self, combat: Combat) -> ToyState:
        return ToyState(round=1, phase="main", hp={c.id: c.hp for c in combat.encounter.combatants})

    def _ids(self, combat: Combat) -> list[str]:
        return [c.id for c in combat.encounter.combatants]

    def advance(self, combat: Combat) -> None:
        st: ToyState = combat.state  # type: ignore[assignment]
        ids = self._ids(combat)
        alive = {combat.encounter.combatants[i].side for i, c in enumerate(ids) if st.hp[c] > 0}
        if len(alive) <= 1:
            st.outcome = Outcome(alive.pop() if alive else None, Termination.ELIMINATED, st.round)
            st.decision = None
            combat.emit("combat_end", f"combat ends: {st.outcome.result}")
            return
        if st.round > combat.encounter.options.round_cap:
            st.round -= 1
            st.outcome = Outcome(None, Termination.ROUND_CAP, st.round)
            st.decision = None
            return
        st.decision = Decision(ids[st.turn % len(ids)], "turn")

    def legal_actions(self, combat: Combat) -> list[Action]:
        st: ToyState = combat.state  # type: ignore[assignment]
        me = st.decision.actor  # type: ignore[union-attr]
        if st.hp[me] <= 0:
            return [Action("pass")]
        return [Action("pass")] + [Action("hit", target=c) for c in self._ids(combat) if c != me and st.hp[c] > 0]

    def apply(self, combat: Combat, action: Action) -> None:
        st: ToyState = combat.state  # type: ignore[assignment]
        me = st.decision.actor  # type: ignore[union-attr]
        if action.verb == "hit":
            face = combat.dice.roll(6)
            combat.emit("roll", f"{me} rolls {face}", actor=me, rule="TOY-1", dice=[face])
            if face >= 4:
                st.hp[action.target] -= 1  # type: ignore[index]
                combat.emit("damage_applied", f"{action.target} loses 1 hp", actor=me)
        st.turn += 1
        if st.turn % len(st.hp) == 0:
            st.round += 1
        self.advance(combat)

    def views(self, combat: Combat) -> list[CombatantView]:
        st: ToyState = combat.state  # type: ignore[assignment]
        return [CombatantView(c.id, c.id, c.side, "npc", "field", st.hp[c.id], c.hp, st.hp[c.id] > 0,
                              "ok" if st.hp[c.id] > 0 else "dead") for c in combat.encounter.combatants]

    def action_catalogue(self, encounter: EncounterBase) -> list[Action]:
        return [Action("pass")] + [Action("hit", target=c.id) for c in encounter.combatants]

    def observe_combatant(self, combat: Combat, cid: str) -> list[float]:
        return [combat.state.hp[cid] / 20.0]  # type: ignore[attr-defined]

    def observe_global(self, combat: Combat) -> list[float]:
        return [combat.state.turn / 100.0]  # type: ignore[attr-defined]


TOY = ToySystem()
TOY_ENCOUNTER = {"ruleset": "toy", "encounter": "toy_duel",
                 "combatants": [{"id": "a", "side": "A"}, {"id": "b", "side": "B"}]}


