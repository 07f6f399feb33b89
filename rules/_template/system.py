"""The rule system's hooks: the kernel calls these and owns everything else (loop, dice, log, rollback).

Rules, cited by id in the events (a real system cites its specification's ids, always in the dotted form
``PREFIX-<section>.<rule>``: the rules-page check and the coverage tool see no other):

- TPL-1.1 Hit: the actor names a standing foe and rolls a d6; `hit_on` or more takes one hit point.
- TPL-1.2 Turns: combatants act one after the other in roster order; one who is down only passes.
- TPL-1.3 End: a side with nobody standing loses; after `round_cap` rounds the combat is a draw.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from trpg_arena.rules.core.battlefield import Battlefield, zone_line
from trpg_arena.rules.core.system import CombatantView, RuleSystem, RuleSystemInfo
from trpg_arena.rules.core.values import Action, DecisionKind, Outcome, Termination, shared_decision

from .model import Options, TemplateEncounter
from .state import TemplateState
from .tables import Tables, build_tables
from .verbs import Condition, Verb

if TYPE_CHECKING:
    from .state import TemplateCombat

HERE = Path(__file__).parent
ID = HERE.name.lstrip("_")  # the folder names the system: a renamed copy is a new system
PASS = Action(Verb.PASS)


class TemplateSystem(RuleSystem[TemplateState, Tables, TemplateEncounter]):
    """Two sides trading blows in one zone."""

    # a copy changes `title` (what lists and pages show) and `prefix` (its rule ids), and bumps `env_version`
    # with every deliberate change of its rules (the Gymnasium id and the golden files follow it)
    info = RuleSystemInfo(id=ID, title="Template (a minimal rule system to copy)", prefix="TPL", dice="1D6",
                          board="zones", encounter=TemplateEncounter, options=Options, env_name=ID.capitalize(),
                          env_version=0, data_dir=HERE)
    state_type = TemplateState
    # the system's own scripted policy, in this folder: a copy of the folder brings its agent along
    scripted_agent = ".tactics:TemplateTactics"
    decision_kinds = {"turn": DecisionKind.TURN}
    combatant_features = 1
    global_features = 1

    # --- setup ------------------------------------------------------------------------------------
    def build_battlefield(self, encounter: TemplateEncounter) -> Battlefield:
        """One zone that everybody stands in."""
        return zone_line(["field"])

    def compile(self, encounter: TemplateEncounter, battlefield: Battlefield) -> Tables:
        """The roster's static facts, once per encounter content."""
        return build_tables(encounter)

    def new_state(self, combat: TemplateCombat) -> TemplateState:
        """Everyone at full health, round 1, or as the encounter's ``start`` section says; no dice are rolled here."""
        t, start = combat.tables, combat.encounter.start
        if start is None:
            return TemplateState(round=1, phase="main", hp=dict(t.max_hp))
        first = t.ids.index(start.actor) if start.actor is not None else 0  # TPL-1.2: turns go in roster order
        return TemplateState(round=start.round, phase="main", hp=t.max_hp | start.hp, turn=first)

    def advance(self, combat: TemplateCombat) -> None:
        """Open the next turn, or end the combat (TPL-1.2, TPL-1.3); `apply` calls it after every action."""
        st, t = combat.state, combat.tables
        standing = {t.side[c] for c in t.ids if st.hp[c] > 0}
        if len(standing) <= 1:
            st.outcome = Outcome(standing.pop() if standing else None, Termination.ELIMINATED, st.round)
        elif st.round > t.options.round_cap:
            st.outcome = Outcome(None, Termination.ROUND_CAP, t.options.round_cap)
            st.round = t.options.round_cap
        if st.outcome is not None:
            st.decision = None
            combat.emit("combat_end", f"combat ends: {st.outcome.result}", rule="TPL-1.3",
                        winner=st.outcome.winner, termination=st.outcome.termination.value)
            return
        actor = t.ids[st.turn % len(t.ids)]
        st.decision = shared_decision(actor, "turn", f"{t.name[actor]}'s turn")

    # --- decisions --------------------------------------------------------------------------------
    def legal_actions(self, combat: TemplateCombat) -> list[Action]:
        """Pass, or hit a standing foe (TPL-1.1); one who is down only passes (the kernel then takes it)."""
        st, t = combat.state, combat.tables
        me = st.decision.actor if st.decision else ""
        if st.hp[me] <= 0:
            return [PASS]
        return [PASS] + [Action(Verb.HIT, target=c) for c in t.ids if t.side[c] != t.side[me] and st.hp[c] > 0]

    def apply(self, combat: TemplateCombat, action: Action) -> None:
        """Resolve a legal action, then advance to the next decision point."""
        st, t = combat.state, combat.tables
        me = st.decision.actor if st.decision else ""
        if action.verb == Verb.HIT and action.target is not None:
            face = combat.dice.roll(6, roller=me, purpose=f"the hit on {action.target}")  # asked so at a table
            hit = face >= t.options.hit_on
            combat.emit("roll", f"{me} rolls {face} against {action.target}: {'hit' if hit else 'miss'}", actor=me,
                        rule="TPL-1.1", dice=[face], hit=hit)
            if hit:
                st.hp[action.target] -= 1
                combat.emit("damage_applied", f"{action.target} loses 1 hp ({st.hp[action.target]} left)",
                            actor=me, rule="TPL-1.1", target=action.target, hp=st.hp[action.target])
        st.turn += 1
        if st.turn % len(t.ids) == 0:
            st.round += 1
        self.advance(combat)

    def describe(self, combat: TemplateCombat, action: Action) -> str:
        """The sentence a GM reads."""
        return f"hits {action.target}" if action.verb == Verb.HIT else "passes"

    # --- views and the env ------------------------------------------------------------------------
    def views(self, combat: TemplateCombat) -> list[CombatantView]:
        """Every combatant, in roster order."""
        st, t = combat.state, combat.tables
        return [CombatantView(c, t.name[c], t.side[c], t.kind[c], "field", max(0, st.hp[c]), t.max_hp[c],
                              st.hp[c] > 0, Condition.OK if st.hp[c] > 0 else Condition.DEAD) for c in t.ids]

    def action_catalogue(self, encounter: TemplateEncounter) -> list[Action]:
        """Pass, then a hit on every combatant (the env's action space)."""
        return [PASS] + [Action(Verb.HIT, target=c.id) for c in encounter.combatants]

    def observe_combatant(self, combat: TemplateCombat, cid: str) -> list[float]:
        """Hit points as a fraction of the maximum."""
        return [max(0, combat.state.hp[cid]) / combat.tables.max_hp[cid]]

    def observe_global(self, combat: TemplateCombat) -> list[float]:
        """How far the round is towards the cap."""
        return [combat.round / combat.tables.options.round_cap]
