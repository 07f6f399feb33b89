"""`KiaiSystem`: the kernel hook contract for `kiai`, delegating to the rule modules."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.battlefield import Battlefield, hex_grid
from trpg_arena.rules.core.system import CombatantView, RuleSystem, RuleSystemInfo
from trpg_arena.rules.core.values import Action, DecisionKind
from trpg_arena.rules.kiai import catalogue as cat
from trpg_arena.rules.kiai import state_check
from trpg_arena.rules.kiai.actions import apply_action
from trpg_arena.rules.kiai.context import Ctx, build_ctx
from trpg_arena.rules.kiai.edits import KiaiEditor
from trpg_arena.rules.kiai.legal import DODGE_OR_NOT, d1, d2, d3, p1, r1
from trpg_arena.rules.kiai.model import KiaiEncounter, KiaiOptions
from trpg_arena.rules.kiai.setup import new_state
from trpg_arena.rules.kiai.state import KiaiState
from trpg_arena.rules.kiai.turns import advance
from trpg_arena.rules.kiai.verbs import Verb

if TYPE_CHECKING:
    from collections.abc import Callable

    from trpg_arena.rules.kiai.state import KiaiCombat

ALL_OUT = "all-out: hit x2, own dodge halved until the next turn"  # KIA-13.1, as a GM reads it
STATUS_WORDS = ("ok", "light", "moderate", "serious", "incapacitated", "dead")
_new_tuple = tuple.__new__
DECIDER_SETS = {"D1": d1, "D2": d2, "D3": d3, "P1": p1}  # the legal sets that read the decider, by step


class KiaiSystem(RuleSystem[KiaiState, Ctx, KiaiEncounter]):
    """D100 roll-under combat on a hex map with kiai-powered techniques (rules: docs/rules/kiai.md)."""

    info = RuleSystemInfo(id="kiai", title="Kiai: percentile combat on a hex map with kiai-powered techniques",
                          prefix="KIA", dice="D100 / D10", board="hex", encounter=KiaiEncounter, options=KiaiOptions,
                          env_name="Kiai", env_version=0, data_dir=Path(__file__).parent,
                          health="wounds")  # a view's hp is the wound boxes left; its status names the wound level
    editor = KiaiEditor()  # what a GM may edit mid-fight (see `edits`)

    state_type = KiaiState
    # its scripted policy and tactical estimates (rules/kiai/tactics.py); the agents layer makes it an agent
    scripted_agent = ".tactics:KiaiTactics"
    # at these budgets the playouts' short horizon favoured trading blows over dodging: normal lost 15-30 to
    # scripted where scripted itself went 19-26 on the same seeds, so a search leaves the scripted choice only
    # for a gain three standard errors wide (18-27 measured with that; docs/search.md).
    # From `normal` up the root is paired (as moonlit's and reincarnator's): every contender on the same dice,
    # the trained agent's choice left only for a paired gain 1.5 standard errors wide that its own look agrees
    # with, our own later decisions searched. A third of the UCB root's CPU at the median (kiai/skirmish 229
    # against 620 ms), and against scripted 64.0 % [54.2, 72.7] of 100 skirmishes (seed 1400000) and
    # 60.0 % [50.2, 69.1] of 100 duels (seed 2200000): docs/search.md
    search_changes = {"margin": 3.0, "paired": 1.5, "below": "own"}
    # Decision steps by kind (`Decision.step` -> `DecisionKind`)
    decision_kinds = {
        **dict.fromkeys(("D1", "D2", "D3"), DecisionKind.TURN),
        **dict.fromkeys(("R1", "R2", "R3", "P1"), DecisionKind.REACTION),
    }
    combatant_features = cat.COMBATANT_FEATURES
    global_features = cat.GLOBAL_FEATURES

    def build_battlefield(self, encounter: KiaiEncounter) -> Battlefield:
        """Section 5: odd-r hexes; difficult cost 2; blocked hexes have no edges and block sight."""
        m = encounter.map
        cells: dict[tuple[int, int], dict[str, Any]] = {}
        for h in m.difficult:
            cells.setdefault(h, {}).update(cost=2, terrain="difficult")
        for h in m.blocked:
            cells.setdefault(h, {}).update(blocked=True, blocks_los=True, terrain="blocked")
        for h in m.exits:
            cells.setdefault(h, {}).update(exit=True)
        return hex_grid(m.width, m.height, cells, impassable=lambda a: bool(a.get("blocked")))

    # The static tables (`Ctx`): weapons by key, abilities, thresholds, the map's geometry.
    compile = staticmethod(build_ctx)

    # A restored state's fields agree with each other and with the encounter (see `state_check`).
    check_state = staticmethod(state_check.check_state)

    def new_state(self, combat: KiaiCombat) -> KiaiState:
        """Initial state from the encounter and its `start` section (no dice)."""
        return new_state(combat.tables)

    advance = staticmethod(advance)  # Run the state machine to the next decision point (section 6).

    def legal_actions(self, combat: KiaiCombat) -> list[Action]:
        """The exact legal set at the open decision (section 7)."""
        st = combat.state
        d = st.decision
        assert d is not None
        of_decider = DECIDER_SETS.get(d.step)
        if of_decider is not None:
            return of_decider(combat.tables, st, st.fighters[d.actor])
        return r1(combat.tables, st) if d.step == "R1" else DODGE_OR_NOT  # R2, R3

    def auto_resolve(self, combat: KiaiCombat, legal: list[Action]) -> bool:
        """Never: section 6 offers D2 and D3 even when `end_turn` is the only legal action."""
        return False

    def apply(self, combat: KiaiCombat, action: Action) -> None:
        """Apply a legal action, then advance."""
        st = combat.state
        assert st.decision is not None
        d = st.decision
        st.decision = None
        ctx = combat.tables
        apply_action(combat, ctx, st, d.step, d.actor, action)
        advance(combat, ctx)

    def describe(self, combat: KiaiCombat, action: Action) -> str:
        """The GM sentence for an action."""
        return cat.describe(action)

    def option_part(self, combat: KiaiCombat, verb: str, index: int) -> tuple[str, Callable[[Any], str | None]] | None:
        """An attack's technique X, all-out and ability, named and explained (KIA-16.1, KIA-13.1, section 21)."""
        if verb in (Verb.ATTACK, Verb.REATTACK):
            if index == 0:
                return "technique", lambda x: ("no technique" if not x else
                                               f"technique {x}: hit -{x}, foe's dodge -{x}")
            if index == 1:
                return "all-out", lambda on: ALL_OUT if on else "not all-out"
            if index == 2:
                abilities = combat.tables.abilities
                actor = combat.decision.actor if combat.decision is not None else ""

                def ability(name: Any) -> str:
                    ab = abilities.get(actor, {}).get(name) if name else None
                    return "no kiai ability" if not name else (
                        f"{name}: {ab.effect}, {ab.level} kiai" if ab is not None else str(name))
                return "ability", ability
        if verb == Verb.TWO_WEAPON_ATTACK and index == 0:
            return "all-out", lambda on: ALL_OUT if on else "not all-out"
        return None

    def order_values(self, combat: KiaiCombat) -> dict[str, str]:
        """This round's initiative totals (KIA-1.1), read back from the round's initiative events."""
        out: dict[str, str] = {}
        for ev in reversed(combat.log):
            if ev.round != combat.round:
                break
            if ev.kind == "initiative_rolled" and ev.actor is not None and ev.actor not in out:
                out[ev.actor] = f"init {ev.data['total']}"
        return out

    def views(self, combat: KiaiCombat) -> list[CombatantView]:
        """Every combatant as a `CombatantView` (hp = wound boxes left, 0 when dead)."""
        st = combat.state
        ctx = combat.tables
        static = ctx.view_static
        if static is None:
            total = sum(ctx.boxes) + 1
            static = ctx.view_static = (total, [(cid, ctx.spec[cid].name or cid, ctx.spec[cid].side,
                                                 ctx.spec[cid].kind) for cid in ctx.ids])
        total, rows = static
        out = []
        fighters = st.fighters
        for cid, name, side, role in rows:
            f = fighters[cid]
            if f.dead:
                hp, status = 0, f.out or "dead"
            else:
                w = f.wounds  # four levels (the state check holds every state to the four boxes of `Ctx.boxes`)
                hp = total - (w[0] + w[1] + w[2] + w[3])
                # `status_index` inline: the highest checked level
                status = f.out or STATUS_WORDS[4 if w[3] else 3 if w[2] else 2 if w[1] else 1 if w[0] else 0]
            conds = f.conds
            types = () if not conds else (conds[0].type,) if len(conds) == 1 else tuple([c.type for c in conds])
            # tuple.__new__ skips the named tuple's Python-level __new__ (same fields, in order)
            out.append(_new_tuple(CombatantView, (cid, name, side, role, f.hex, hp if hp > 0 else 0, total, not f.out,
                                                  status, types)))
        return out

    # Every action that can ever be legal in this encounter, in a fixed order.
    action_catalogue = staticmethod(cat.catalogue)

    # Kiai, wound status, conditions, round flags and gear of each combatant, in one pass.
    observe_combatants = staticmethod(cat.observe_combatants)

    observe_global = staticmethod(cat.observe_global)  # Round and decision kind.
