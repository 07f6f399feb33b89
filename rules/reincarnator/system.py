"""`ReincarnatorSystem`: the kernel hook contract, delegating to the rule modules."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from trpg_arena.rules.core.copier import state_copier
from trpg_arena.rules.core.encounter import overlay
from trpg_arena.rules.core.system import CombatantView, RuleSystem, RuleSystemInfo
from trpg_arena.rules.core.values import DecisionKind
from trpg_arena.rules.reincarnator import actions, legal, state_check, turns
from trpg_arena.rules.reincarnator.board import build_battlefield
from trpg_arena.rules.reincarnator.catalogue import catalogue, describe_action, place_of
from trpg_arena.rules.reincarnator.conditions import loser_margin, pinned, status_of
from trpg_arena.rules.reincarnator.data import Static, build_static
from trpg_arena.rules.reincarnator.edits import ReincarnatorEditor
from trpg_arena.rules.reincarnator.encounter import ReincarnatorEncounter
from trpg_arena.rules.reincarnator.model import EffectSpec, ItemSpec, ReincarnatorOptions
from trpg_arena.rules.reincarnator.state import EffectState, Fighter, Grapple, ItemState, ReiState, VehicleState
from trpg_arena.rules.reincarnator.verbs import Condition

if TYPE_CHECKING:
    from trpg_arena.rules.reincarnator.state import ReiCombat

_FRESH = "laid-out state"  # the static tables' memo entry of `ReincarnatorSystem.new_state`
_copy_state = state_copier(ReiState)
PHASES = ("setup", "surprise", "initiative", "round_start", "turn_start", "turn", "turn_end", "round_end", "over")


class ReincarnatorSystem(RuleSystem[ReiState, Static, ReincarnatorEncounter]):
    """The reincarnator rule system (rules: docs/rules/reincarnator.md)."""

    info = RuleSystemInfo(id="reincarnator", title="Reincarnator (无限恐怖-style d10 pools)", prefix="REI",
                          dice="d10 pools", board="square", encounter=ReincarnatorEncounter,
                          options=ReincarnatorOptions, env_name="Reincarnator", env_version=1,
                          data_dir=Path(__file__).parent)

    editor = ReincarnatorEditor()  # what a GM may edit mid-fight (see `edits`)

    state_type = ReiState
    # its scripted policy and tactical queries (rules/reincarnator/tactics.py); the agents layer makes it an agent
    scripted_agent = ".tactics:ReincarnatorTactics"
    # the search on the learned value as moonlit's (see there): the UCB root won 48.0 % of duels against scripted
    search_changes = {"paired": 1.5, "below": "own"}
    # Decision steps by kind (`Decision.step` -> `DecisionKind`)
    decision_kinds = {
        **dict.fromkeys(("turn",), DecisionKind.TURN),
        **dict.fromkeys(("attack_declared", "grapple_resist"), DecisionKind.REACTION),
    }
    combatant_features = 20
    global_features = 5

    build_battlefield = staticmethod(build_battlefield)  # A 1 m square grid (section 5).

    # The static tables (`Static`: roster, items, vehicles, the board on the kernel grid).
    compile = staticmethod(build_static)

    # A restored state's fields agree with each other and with the encounter (see `state_check`).
    check_state = staticmethod(state_check.check_state)

    def new_state(self, combat: ReiCombat) -> ReiState:
        """The initial state, or the mid-combat state of the ``start`` section.

        The state before the ``start`` section depends on the encounter alone (no dice), so it is built once per
        encounter and copied: a brawl's roster and items took about as long to lay out as a tenth of its game.
        """
        st = combat.tables
        kept: ReiState | None = st.memo.get(_FRESH)
        if kept is None:
            kept = st.memo[_FRESH] = self._laid_out(combat)
        state = _copy_state(kept)
        if st.enc.start is not None:
            apply_start(combat, state)
        return state

    @staticmethod
    def _laid_out(combat: ReiCombat) -> ReiState:
        """The state the encounter lays out: fighters, items, vehicles, cover and doors, before ``start``."""
        st = combat.tables
        enc = st.enc
        state = ReiState()
        reserve = {c for r in enc.reinforcements for c in (x.id for x in r.combatants)}
        for cid in st.roster:
            sp = st.specs[cid]
            f = Fighter(cid, sp.side, sp.position)
            sc = sp.start
            f.lethal, f.bashing = sc.lethal, sc.bashing
            f.prone, f.crouching, f.hidden = sc.prone, sc.crouching, sc.hidden
            f.status = status_of(f.lethal, f.bashing, 0, st.max_health[cid]) if sc.status is None else sc.status
            if cid in reserve:
                f.status = "reserve"
            f.effects = [effect_state(e) for e in sp.effects if enc.start is None or e.duration != "scene"]
            f.slots = turns.fresh_slots(combat, cid)
            if sp.in_vehicle is not None:
                f.in_vehicle = sp.in_vehicle
            state.fighters[cid] = f
        # the items in the tables' order: the fighters' (roster order), the map's, the vehicles' (`build_static`)
        for uid, owner in st.item_owner.items():
            it = st.items[uid]
            s = state.items[uid] = item_state(it, owner)
            if owner is None:
                assert isinstance(it.location, tuple)  # the encounter checks that a map item lies on a cell
                s.loc, s.cell = "ground", it.location
            elif owner in st.vehicles:
                s.loc = "vehicle"
        for vid, vs in st.vehicles.items():
            drv = vs.driver or next((c for c in st.roster if st.specs[c].in_vehicle == vid), None)
            side = vs.side if vs.side is not None else (st.specs[drv].side if drv else None)
            state.vehicles[vid] = VehicleState(vid, side, vs.position, drv)
            if drv:
                state.fighters[drv].in_vehicle = vid
                state.fighters[drv].cell = vs.position
        for cid in st.roster:  # cover given in the stat block's start conditions
            cov = st.specs[cid].start.in_cover
            if cov is not None:
                set_cover(combat, state, cid, cov)
        for c, d in st.board.doors0.items():
            state.doors[f"{c[0]},{c[1]}"] = d
        return state

    advance = staticmethod(turns.advance)  # Run to the next decision point (section 6).

    legal_actions = staticmethod(legal.legal_actions)  # The action mask (section 7).

    apply = staticmethod(actions.apply)  # Apply one legal action, then advance.

    describe = staticmethod(describe_action)  # A GM sentence for the action.

    # The square an action ends on: a charge's ``dest`` is an offset from its target's square (REI-5.5).
    place_of = staticmethod(place_of)

    def order_values(self, combat: ReiCombat) -> dict[str, str]:
        """Each fighter's initiative total this round (its d10 plus the pool), once rolled."""
        fighters = combat.state.fighters
        return {cid: f"init {f.init_total}" for cid, f in fighters.items() if f.init_d10}

    def views(self, combat: ReiCombat) -> list[CombatantView]:
        """Every combatant in roster order."""
        st = combat.tables
        state = combat.state
        out = []
        for cid in st.roster:
            f = state.fighters[cid]
            mx = st.max_health[cid]
            out.append(CombatantView(cid, st.specs[cid].name or cid, f.side, st.specs[cid].kind, f.cell,
                                     max(0, mx - f.lethal - f.bashing), mx, f.status == "active", f.status,
                                     conditions(state, f)))
        return out

    # Every action that can ever be legal in this encounter (see `catalogue`).
    action_catalogue = staticmethod(catalogue)

    def max_slots(self, encounter: ReincarnatorEncounter) -> int:
        """Roster plus reinforcements."""
        return len(encounter.all_specs())

    def observe_combatants(self, combat: ReiCombat, ids: list[str]) -> list[list[float]]:
        """20 features each: slots, conditions, defence state, aim, damage (roughly in [0, 1])."""
        state = combat.state
        fighters, max_health, gs = state.fighters, combat.tables.max_health, state.grapples
        out = []
        for cid in ids:
            f = fighters[cid]
            s = f.slots
            if gs:
                is_held = float(any(g.held == cid for g in gs))
                is_pinned = float(pinned(state, cid))
                holds = float(any(g.holder == cid for g in gs))
                margin = min(1.0, loser_margin(state, cid) / 5)
            else:  # no grapple anywhere: the common case skips the four scans
                is_held = is_pinned = holds = margin = 0.0
            out.append([s.get("standard", 0), s.get("move", 0), s.get("swift", 0), min(1.0, s.get("trick", 0) / 2),
                        min(1.0, s.get("acrobatic", 0) / 2), float(f.prone), float(f.crouching), f.cover_value / 5,
                        float(f.hidden), is_held, is_pinned, holds, f.aim_count / 3, min(1.0, f.bd_loss / 5),
                        float(f.full_defense), min(1.0, f.parry_value / 5), float(f.reflex),
                        float(f.in_vehicle is not None), f.lethal / max_health[cid], margin])
        return out

    def observe_global(self, combat: ReiCombat) -> list[float]:
        """Round fraction, phase, reaction window flags."""
        state = combat.state
        cap = combat.tables.enc.options.round_cap
        d = state.decision
        kind = d.step if d is not None else ""
        return [state.round / cap, PHASES.index(state.phase) / len(PHASES) if state.phase in PHASES else 0.0,
                float(kind == "attack_declared"), float(kind == "grapple_resist"),
                float(bool(state.surprise_queue) or state.phase == "surprise")]


def effect_state(e: EffectSpec) -> EffectState:
    """The state of an effect from its definition (REI-0.3)."""
    return EffectState(e.name, e.duration, {str(k): v for k, v in e.modifiers.items()})


def item_state(it: ItemSpec, holder: str | None) -> ItemState:
    """Initial state of an item from its definition."""
    loc = it.location if isinstance(it.location, str) else "ground"
    s = ItemState(loc, holder)
    if it.ammo is not None:
        s.loaded, s.spares, s.chambered = it.ammo.loaded, it.ammo.spares, it.ammo.chambered
    return s


def set_cover(combat: ReiCombat, state: ReiState, cid: str, cov: object) -> None:
    """Put `cid` in cover behind an object cell or a combatant (REI-5.11)."""
    st: Static = combat.tables
    f = state.fighters[cid]
    if isinstance(cov, (tuple, list)):
        obj = combat.battlefield.graph.nodes[tuple(cov)].get("object")
        f.cover_value = int(obj["cover"]) if obj else 3
        f.cover_source = f"{cov[0]},{cov[1]}"
    elif isinstance(cov, str) and cov in st.specs:
        f.cover_value = max(1, min(5, st.specs[cov].size - 2))
        f.cover_source = cov


def apply_start(combat: ReiCombat, state: ReiState) -> None:
    """Fill the state from the encounter's ``start`` section (see model.py)."""
    st = combat.tables
    start = st.enc.start
    assert start is not None
    state.round = start.round
    state.order = list(start.order)
    state.actor = start.actor or start.order[0]
    state.index = state.order.index(state.actor)
    state.reorder_pending = start.reorder_pending
    state.phase = "turn_start" if start.fresh_turn else "turn"
    for cid, fs in start.combatants.items():
        f = state.fighters[cid]
        overlay(f, fs, "cell", "status", "lethal", "bashing", "prone", "crouching", "hidden", "bd_loss", "full_defense",
                "aim_target", "aim_count", "moved", "aimed", "parried", "acted", "init_d10", "init_total")
        if fs.status is None and (fs.lethal is not None or fs.bashing is not None):
            f.status = status_of(f.lethal, f.bashing, 0, st.max_health[cid])
        overlay(f, fs, "parry_value", acro_dodge="acro_dodge_bonus", reflex="reflex_available",
                had_turn="has_had_turn")
        if fs.slots is not None:
            f.slots = fs.slots.model_dump()
        if fs.in_cover is not None:
            set_cover(combat, state, cid, fs.in_cover)
        f.effects.extend(effect_state(e) for e in fs.effects)
        for k, its in fs.items.items():
            it = state.items.get(k) or state.items.get(f"{cid}.{k}")
            if it is None:
                continue
            if its.location is not None:
                if isinstance(its.location, tuple):
                    it.loc, it.holder, it.cell = "ground", None, its.location
                else:
                    it.loc = its.location
            overlay(it, its, "loaded", "spares", "chambered")
    state.grapples.extend(Grapple(g.holder, g.held, g.state, g.hold_margin, g.pin_margin, g.with_)
                          for g in start.grapples)
    state.doors.update({f"{d.at[0]},{d.at[1]}": d.door for d in start.doors})
    state.order += [cid for cid, f in state.fighters.items() if f.status == "active" and cid not in state.order]


def conditions(state: ReiState, f: Fighter) -> tuple[str, ...]:
    """Condition words for a view (section 8)."""
    if not (f.prone or f.crouching or f.hidden or f.full_defense or f.cover_source is not None
            or f.in_vehicle is not None or f.aim_count or state.grapples or f.parry_value):
        return ()
    flags = ((Condition.PRONE, f.prone), (Condition.CROUCHING, f.crouching), (Condition.HIDDEN, f.hidden),
             (Condition.FULL_DEFENSE, f.full_defense), (Condition.IN_COVER, f.cover_source is not None),
             (Condition.IN_VEHICLE, f.in_vehicle is not None))
    out: list[str] = [word for word, shown in flags if shown]
    if f.aim_count:
        out.append(f"{Condition.AIM}{f.aim_count}")
    for g in state.grapples:
        if g.held == f.id:
            out.append(Condition.PINNED if g.state == "pin" else Condition.HELD)
        elif g.holder == f.id:
            out.append(Condition.PINNING if g.state == "pin" else Condition.HOLDING)
    if f.parry_value:
        out.append(Condition.PARRYING)
    return tuple(out)
