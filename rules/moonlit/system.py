"""`MoonlitSystem`: the kernel hook contract, delegating to the rule modules (section 6 state machine)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.battlefield import Battlefield, zone_line
from trpg_arena.rules.core.compiled import compiled
from trpg_arena.rules.core.system import CombatantView, RuleSystem, RuleSystemInfo
from trpg_arena.rules.core.values import Action, DecisionKind, shared_decision
from trpg_arena.rules.core.wording import counted
from trpg_arena.rules.moonlit import attack, phases, state_check, turn
from trpg_arena.rules.moonlit.catalogue import build_catalogue
from trpg_arena.rules.moonlit.data import ZONES
from trpg_arena.rules.moonlit.edits import MoonlitEditor
from trpg_arena.rules.moonlit.fighters import ABLE, remove_condition
from trpg_arena.rules.moonlit.model import MoonlitEncounter, MoonlitOptions
from trpg_arena.rules.moonlit.observe import (
    COMBATANT_FEATURES,
    GLOBAL_FEATURES,
    observe_combatants,
    observe_global,
)
from trpg_arena.rules.moonlit.setup_state import new_state
from trpg_arena.rules.moonlit.state import MoonState
from trpg_arena.rules.moonlit.tables import Table, build_table, table_of
from trpg_arena.rules.moonlit.verbs import Condition, Verb

if TYPE_CHECKING:
    from trpg_arena.rules.moonlit.state import MoonCombat

CLEAR_TRANCE = Action(Verb.CLEAR_TRANCE)


def _main_dp(c: MoonCombat) -> bool:
    st = c.state
    st.decision = shared_decision(str(st.actor), "main", f"main action (AP {st.fighters[str(st.actor)].ap})")
    return True


def _purge_start(c: MoonCombat) -> bool:
    phases.start_queue(c, "purge")
    return False


def _end_skills_start(c: MoonCombat) -> bool:
    c.state.phase_used = []
    phases.start_queue(c, "end_skills")
    return False


HANDLERS: dict[str, Callable[[Any], bool]] = {
    "deploy": phases.queue_run,
    "round_start": phases.round_start,
    "entry": phases.entry,
    "escape": phases.escape_start,
    "escape_q": phases.queue_run,
    "action_points": phases.action_points,
    "purge_start": _purge_start,
    "purge": phases.queue_run,
    "setup_skills_start": phases.setup_skills_start,
    "setup_skills": phases.queue_run,
    "setup_done": phases.setup_done,
    "decide": turn.decide,
    "main": _main_dp,
    "attack": attack.run,
    "end": phases.end_phase,
    "end_skills_start": _end_skills_start,
    "end_skills": phases.queue_run,
    "round_end": phases.round_end,
}


_PHRASES: dict[str, str] = {
    Verb.PASS: "passes", Verb.DONE: "is done", Verb.ESCAPE: "tries to escape", Verb.STAY: "stays",
    Verb.COUNTER: "counterattacks", Verb.COVER: "covers the target", Verb.DECLINE: "declines",
    Verb.TARGET_DONE: "ends targeting", Verb.CLEAR_TRANCE: "spends 15 emotion points to clear trance",
}


def _boost(a: Action) -> str:
    if a.option == "none":
        return "adds no offense skill" if a.verb == Verb.OFFENSE else "makes no limit break"
    return f"adds {a.option}" if a.verb == Verb.OFFENSE else f"breaks the limit (30 HP) to add {a.option}"


def _use(a: Action) -> str:
    name, extra = a.option if isinstance(a.option, tuple) else (a.option, None)
    text = f"uses {name}"
    if extra is not None:
        text += f" ({extra})"
    if a.target is not None:
        text += f" on {a.target}"
    return text


# the sentence of every verb with a target or an option (one lookup per described action)
_SENTENCES: dict[str, Callable[[Action], str]] = {
    Verb.DELAY: lambda a: f"delays to {counted(a.option, 'action point')}",
    Verb.MOVE: lambda a: f"moves toward {a.dest}",
    Verb.DEPLOY: lambda a: f"deploys in the {a.option} row",
    Verb.PURGE: lambda a: f"pays 15 TP to shake off {a.option}",
    Verb.ATTACK: lambda a: f"attacks with {a.option}",
    Verb.OFFENSE: _boost,
    Verb.LIMIT_BREAK: _boost,
    Verb.TARGET: lambda a: f"targets {a.target}",
    Verb.DODGE: lambda a: "dodges" if a.option == "none" else f"dodges with {a.option}",
    Verb.COUP_DE_GRACE: lambda a: f"delivers the coup de grace to {a.target}",
    Verb.USE_SKILL: _use,
    Verb.USE_ITEM: _use,
    Verb.INTERRUPT: _use,
}


def describe_action(a: Action) -> str:
    """A GM sentence for one moonlit action."""
    phrase = _PHRASES.get(a.verb)
    if phrase is not None:
        return phrase
    sentence = _SENTENCES.get(a.verb)
    return a.describe() if sentence is None else sentence(a)


class MoonlitSystem(RuleSystem[MoonState, Table, MoonlitEncounter]):
    """Sen'ya Tsukihime-style 2D6 zone combat (rules: docs/rules/moonlit.md)."""

    info = RuleSystemInfo(id="moonlit", title="Moonlit (Sen'ya Tsukihime-style 2D6 zone combat)", prefix="MOON",
                          dice="2D6", board="zones", encounter=MoonlitEncounter, options=MoonlitOptions,
                          env_name="Moonlit", env_version=1, data_dir=Path(__file__).parent,
                          routine={"escape": Verb.STAY})

    editor = MoonlitEditor()  # what a GM may edit mid-fight (see `edits`)

    state_type = MoonState
    # its scripted policy and tactical queries (rules/moonlit/tactics.py); the agents layer makes it an agent
    scripted_agent = ".tactics:MoonlitTactics"
    value_weight = 0.1  # TP pays for moonlit's strong attacks and cures: a search values what is left
    # the search on the learned value (mcts normal..deadly): every root candidate on the same dice, the other
    # side's replies by the script, a deviation only where the trained agent's own look agrees. The plain
    # UCB root left 'attacks with strike' for 'delays' at estimated gains of +0.2 to +0.7 that play-outs put
    # at zero, and drew: 51.7 % of decided duels against scripted (docs/search.md)
    search_changes = {"paired": 1.5, "below": "own"}
    # Decision steps by kind (`Decision.step` -> `DecisionKind`)
    decision_kinds = {
        **dict.fromkeys(("main",), DecisionKind.TURN),
        **dict.fromkeys(("reaction", "cover", "interrupt"), DecisionKind.REACTION),
        **dict.fromkeys(("deploy", "escape", "purge", "setup_skill", "end_skill", "offense", "limit_break", "target"),
                       DecisionKind.CHOICE),
    }
    combatant_features = COMBATANT_FEATURES
    global_features = GLOBAL_FEATURES

    def value_extra(self, combat: MoonCombat, side: str) -> float:
        """Share of TP left on this side minus the other's: TP pays for the strong attacks and cures."""
        caps = {c.id: c.max_tp for c in combat.encounter.combatants}  # a handful of combatants: cheap to read
        own = own_max = other = other_max = 0
        for f in combat.state.fighters.values():
            cap = caps.get(f.id, 0)
            if not cap or f.hp <= 0:
                continue
            if combat.side_of(f.id) == side:
                own, own_max = own + f.tp, own_max + cap
            else:
                other, other_max = other + f.tp, other_max + cap
        return (own / own_max if own_max else 0.0) - (other / other_max if other_max else 0.0)

    # --- setup --------------------------------------------------------------------------------------
    def build_battlefield(self, encounter: MoonlitEncounter) -> Battlefield:
        """The four zones in a line (section 5), each tagged with side and row."""
        attrs: dict[str, dict[str, Any]] = {z: {"side": z[0], "row": z.split("_")[1]} for z in ZONES}
        for h in encounter.hazards:
            attrs[h.zone]["hazard_n"] = h.n
        return zone_line(ZONES, **attrs)

    def compile(self, encounter: MoonlitEncounter, battlefield: Battlefield) -> Table:
        """The stat blocks of everyone who can appear, and the encounter's other static facts."""
        return build_table(encounter)

    def check_state(self, state: MoonState, combat: MoonCombat) -> None:
        """A restored state's fields agree with each other and with the encounter (see `state_check`)."""
        state_check.check_state(state, combat, HANDLERS)

    def new_state(self, combat: MoonCombat) -> MoonState:
        """Initial state from the encounter (and its ``start`` section); no dice."""
        enc = combat.encounter
        assert isinstance(enc, MoonlitEncounter)
        return new_state(enc, combat.tables)

    def advance(self, combat: MoonCombat) -> None:
        """Run the section-6 state machine to the next decision point or the end."""
        st = combat.state
        handlers = HANDLERS
        while st.outcome is None:
            if handlers[st.step](combat):
                return

    # --- decisions ------------------------------------------------------------------------------------
    def legal_actions(self, combat: MoonCombat) -> list[Action]:
        """The exact legal set at the open decision point (section 7)."""
        st = combat.state
        step = st.step
        if step == "main":
            out = turn.main_legal(combat)
        elif step == "attack":
            out = attack.legal(combat)
        else:
            out = phases.queue_legal(combat)
        d = st.decision
        if d is not None:
            f = st.fighters[d.actor]
            if f.trance and f.emotion >= 15 and f.state in ABLE:
                out.append(CLEAR_TRANCE)  # MOON-13.5
        return out

    def apply(self, combat: MoonCombat, action: Action) -> None:
        """Apply a legal action, then advance."""
        st = combat.state
        if action.verb == Verb.CLEAR_TRANCE:
            d = st.decision
            assert d is not None
            f = st.fighters[d.actor]
            f.emotion -= 15  # MOON-13.5: the same decision point is offered again
            remove_condition(combat, f, Condition.TRANCE, "emotion points")
            st.decision = None
            self.advance(combat)
            return
        step = st.step
        if step == "main":
            turn.main_apply(combat, action)
        elif step == "attack":
            attack.apply(combat, action)
        else:
            phases.queue_apply(combat, action)
        self.advance(combat)

    def describe(self, combat: MoonCombat, action: Action) -> str:
        """The GM sentence for an action (e.g. ``attacks with strike``, ``uses healing_light on sayo``)."""
        return describe_action(action)

    # --- views -----------------------------------------------------------------------------------------
    def order_values(self, combat: MoonCombat) -> dict[str, str]:
        """Each able combatant's action points: the highest not yet acted goes next (MOON-5)."""
        fighters = combat.state.fighters
        return {cid: f"AP {f.ap}" for cid, f in fighters.items() if f.state in ("not_acted", "standby", "acted")}

    def views(self, combat: MoonCombat) -> list[CombatantView]:
        """Every possible combatant in a fixed order: roster, then possible summons."""
        st = combat.state
        t = combat.tables
        out = []
        fighters, stats = st.fighters, t.stats
        for cid in t.ids:
            f = fighters[cid]
            s = stats[cid]
            conds: tuple[str, ...] = ()
            if f.poison or f.paralysis or f.bind or f.trance or f.baptism:
                conds = tuple(name for name, on in ((f"poison{f.poison}", f.poison), (Condition.PARALYSIS, f.paralysis),
                                                    (Condition.BIND, f.bind), (Condition.TRANCE, f.trance),
                                                    (Condition.BAPTISM, f.baptism))
                              if on)
            out.append(CombatantView(cid, s.name, s.side, s.kind, f.zone, f.hp, f.max_hp, f.state in ABLE, f.state,
                                     conds))
        return out

    def action_catalogue(self, encounter: MoonlitEncounter) -> list[Action]:
        """Every action that can ever be legal (see catalogue.py for the layout and the delay bound)."""
        built = compiled(encounter, self)
        return list(built.derive("catalogue", lambda: tuple(build_catalogue(built.tables))))

    def possible_ids(self, encounter: MoonlitEncounter) -> list[str]:
        """Every combatant that can ever appear: roster (arrivals included), then possible summons."""
        return list(table_of(encounter).ids)

    # Per-combatant features of several combatants at once (observe.py).
    observe_combatants = staticmethod(observe_combatants)

    observe_global = staticmethod(observe_global)  # Whole-combat features (observe.py).
