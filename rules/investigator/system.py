"""`InvestigatorSystem`: the kernel hook contract, delegating to the rule modules."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.battlefield import Battlefield, square_grid
from trpg_arena.rules.core.encounter import overlay
from trpg_arena.rules.core.system import CombatantView, RuleSystem, RuleSystemInfo
from trpg_arena.rules.core.values import Action, DecisionKind
from trpg_arena.rules.investigator import flow, state_check
from trpg_arena.rules.investigator.catalogue import Meta, catalogue_of, ground_weapon_id
from trpg_arena.rules.investigator.compiled import DIRS, Profile, Setup, build_setup, compile_setup
from trpg_arena.rules.investigator.edits import InvestigatorEditor
from trpg_arena.rules.investigator.model import InvestigatorEncounter, InvestigatorOptions, StartCombatant
from trpg_arena.rules.investigator.state import Fighter, GroundItem, InvState, Item
from trpg_arena.rules.investigator.verbs import Verb

if TYPE_CHECKING:
    from trpg_arena.rules.investigator.state import InvCombat

PHASE_CODE = {"cast": 0, "shoot": 1, "general": 2, "single": 2}
DECISION_CODE = {"phase_offer": 0, "turn_action": 1, "reaction": 2, "defense": 3}
B = (0.0, 1.0)  # a bool as a feature value: B[flag]
ONE_HOT3 = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))  # by PHASE_CODE
ONE_HOT4 = ((1.0, 0.0, 0.0, 0.0), (0.0, 1.0, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0))  # by DECISION_CODE
NO_HOT4 = (0.0, 0.0, 0.0, 0.0)
_new_tuple = tuple.__new__
WORDS: dict[str, str] = {
    Verb.END_TURN: "ends the turn", Verb.WAIT: "waits", Verb.DECLINE: "lets it pass", Verb.DODGE: "dodges",
    Verb.FIGHT_BACK: "fights back", Verb.NO_DEFENSE: "does not defend", Verb.DIVE_FOR_COVER: "dives for cover",
    Verb.STAND_UP: "stands up", Verb.RELOAD: "reloads", Verb.FLEE: "flees", Verb.CONTINUE_CAST: "keeps casting"}
# the sentences of the verbs with a head or a target (`_describe`)
SENTENCES: dict[str, str] = {
    Verb.PREPARE: "prepares {head}", Verb.SWITCH_WEAPON: "wields {head}", Verb.PICK_UP: "picks up {head} ({dir})",
    Verb.PASS_ITEM: "passes {head} to {target}", Verb.CAST: "casts {head} on {target}",
    Verb.OPPORTUNITY_ATTACK: "makes an opportunity attack on {target}",
    Verb.PURSUIT_ATTACK: "makes a pursuit attack on {target}", Verb.FIRST_AID: "gives first aid to {target}"}


class InvestigatorSystem(RuleSystem[InvState, Setup, InvestigatorEncounter]):
    """Call of Cthulhu 7e tactical-grid variant (spec ``investigator``)."""

    info = RuleSystemInfo(id="investigator", title="Investigator (CoC 7e tactical grid)", prefix="INV",
                          dice="1D100", board="square", encounter=InvestigatorEncounter,
                          options=InvestigatorOptions, env_name="Investigator", env_version=2,
                          data_dir=Path(__file__).parent,
                          condition_words={"full_mov_lockout": "unable to act after a full move",
                                           "lose_next_standard": "losing its next action",
                                           "pending_bonus": "holding a bonus die", "channeling": "channelling a spell"})
    editor = InvestigatorEditor()  # what a GM may edit mid-fight (see `edits`)

    state_type = InvState
    # its scripted policy and tactical queries (rules/investigator/tactics.py); the agents layer makes it an agent
    scripted_agent = ".tactics:InvestigatorTactics"
    # the search's root from `normal` up is paired, as every system's: each contender on the same dice, the
    # trained agent's choice left only for a paired gain 1.5 standard errors wide that its own look agrees with,
    # our own later decisions searched. Against scripted 71.0 % [61.5, 79.0] of 100 fresh duels (seed 2210000;
    # the UCB root: 66.0 % [59.2, 72.2] of 200), at a third to a quarter of its CPU at the median; docs/search.md
    search_changes = {"paired": 1.5, "below": "own"}
    # `hard` roots the search in exactly what was then `trained:hard`'s choice (since the presets' re-cut of 6
    # December `trained:deadly`): the `trained:hard` look (until the re-cut called `trained:normal`) that plays
    # the other side's reply (pin = 0, agents/search/rooted.py) over 16 candidates. Pinned to the `normal` before
    # the reply over 8 candidates it had won 15 of 40 skirmishes against `trained:hard` (seeds 3120000 and
    # 3130000); so rooted, 27 of 40 fresh ones (seed 3740000, 67.5 % [52.0, 79.9]) and 20 of 24 fresh ones
    # against scripted (seed 3742000, 83.3 % [64.1, 93.3]; docs/strength.md). `normal` and `deadly` stay pinned:
    # not measured with the reply's anchor.
    preset_changes = {"hard": {"pin": 0, "candidates": 16}}
    # Decision steps by kind (`Decision.step` -> `DecisionKind`)
    decision_kinds = {
        **dict.fromkeys(("turn_action", "phase_offer"), DecisionKind.TURN),
        **dict.fromkeys(("reaction", "defense"), DecisionKind.REACTION),
    }

    # --- setup ------------------------------------------------------------------------------------
    def build_battlefield(self, encounter: InvestigatorEncounter) -> Battlefield:
        """12 x 12 (or the map's size) 5-yard squares, 8-neighbour; walls and obstacles impassable (section 5)."""
        enc = encounter
        cells: dict[tuple[int, int], dict[str, object]] = {}
        t = enc.map.terrain
        for c in t.difficult:
            cells[c[0], c[1]] = {"terrain": "difficult", "cost": 2}
        for c in t.obstacle:
            cells[c[0], c[1]] = {"terrain": "obstacle", "impassable": True}
        for c in t.wall:
            cells[c[0], c[1]] = {"terrain": "wall", "impassable": True, "blocks_los": True}
        for c in enc.map.exits:
            cells.setdefault((c[0], c[1]), {})["exit"] = True
        return square_grid(enc.map.width, enc.map.height, cells, corner_blocks=lambda a: a.get("terrain") == "wall")

    def compile(self, encounter: InvestigatorEncounter, battlefield: Battlefield) -> Setup:
        """The static setup (`Setup`): profiles, weapons, spells, terrain and its masks on the grid."""
        setup = build_setup(encounter)
        setup.bf = battlefield
        grid = setup.grid = battlefield.grid
        setup.wall_mask = grid.mask(c for c, kind in setup.terrain.items() if kind == "wall")
        setup.obstacle_mask = grid.mask(c for c, kind in setup.terrain.items() if kind == "obstacle")
        return setup

    # A restored state's fields agree with each other and with the encounter (see `state_check`).
    check_state = staticmethod(state_check.check_state)

    def new_state(self, combat: InvCombat) -> InvState:
        """Fighters from the roster, overridden by the ``start`` section; no dice are drawn here."""
        setup = combat.tables
        enc = setup.enc  # the encounter the tables were compiled from (its content is the combat's)
        start = enc.start
        fighters = []
        for c, p in zip(enc.combatants, setup.profiles):
            weapons = []
            for wid in c.weapons:
                w = setup.weapons[wid]
                weapons.append(Item(f"{c.id}.{wid}", wid, "weapon", w.loaded, False,
                                    w.count if w.kind == "thrown" else 1))
            f = Fighter(c.id, c.position, p.max_hp, p.max_mp, p.luck,
                        weapons=weapons, wielded="unarmed" if c.wielded == "unarmed" else f"{c.id}.{c.wielded}",
                        ammo=dict(c.ammo), materials=dict(c.materials))
            sc = start.combatants.get(c.id) if start else None
            if sc is not None:
                self._start_fighter(f, sc, c.id)
            if f.dead:
                f.pos = None
            fighters.append(f)
        ground = []
        for i, g in enumerate(enc.map.ground_items):
            at = g.at
            if g.weapon:
                w = setup.weapons[g.weapon]
                it = Item(ground_weapon_id(i, g.weapon), g.weapon, "weapon", w.loaded, False,
                          g.count if w.kind == "thrown" else 1)
            elif g.ammo:
                it = Item(f"ammo:{g.ammo}", g.ammo, "ammo", 0, False, g.count)
            else:
                it = Item(f"material:{g.material}", str(g.material), "material", 0, False, g.count)
            ground.append(GroundItem(at, it))
        st = InvState(fighters=fighters, ground=ground)
        if start is not None:
            st.round = start.round
            st.order = list(start.order) if start.order else []
            st.phase = start.phase if enc.options.priority_mode == "phases" else "single"  # one phase without them
            st.begin_mid_round = True
            st.start_at = start.at or ""
        return st

    @staticmethod
    def _start_fighter(f: Fighter, sc: StartCombatant, cid: str) -> None:
        # a fresh fighter's dying_since is None, so the start's None leaves it as setting it would
        overlay(f, sc, "hp", "mp", "luck", "prepare_used", "move_used", "standard_used", "opportunity_used",
                "had_turn", "moved_long", "steps_this_turn", "dying_since", pos="position")
        for cond in sc.conditions:
            setattr(f, cond, True)
        if f.dying and f.dying_since is None:
            f.dying_since = 1
        if sc.channeling is not None:
            f.channel_spell, f.channel_target, f.channel_done = (sc.channeling.spell, sc.channeling.target,
                                                                 sc.channeling.done)
        if sc.pending_bonus is not None:
            f.bonus_to, f.bonus_expires = list(sc.pending_bonus.bonus_to), sc.pending_bonus.expires
        for w in f.weapons:
            if w.template in sc.loaded:
                w.loaded = sc.loaded[w.template]
            if w.template in sc.jammed:
                w.jammed = True
            if w.template in sc.count:
                w.count = sc.count[w.template]
        if sc.wielded is not None:
            f.wielded = "unarmed" if sc.wielded == "unarmed" else f"{cid}.{sc.wielded}"
        if sc.ammo is not None:
            f.ammo = dict(sc.ammo)
        if sc.materials is not None:
            f.materials = dict(sc.materials)

    advance = staticmethod(flow.advance)  # Run to the next decision point (flow.advance).

    # --- decisions --------------------------------------------------------------------------------
    legal_actions = staticmethod(flow.legal_actions)  # The legal set of the open decision (section 7).

    apply = staticmethod(flow.apply)  # Apply a legal action and advance.

    @staticmethod
    def choice_kind(action: Action, /) -> tuple[Any, ...]:
        """The default, less an attack's or spell's one-step move (``before:N``, ``after:SE``): where, not what."""
        option = action.option
        if isinstance(option, str) and ("before:" in option or "after:" in option):
            option = "+".join(p for p in option.split("+") if not p.startswith(("before:", "after:"))) or None
        return action.verb, action.target, option

    def describe(self, combat: InvCombat, action: Action) -> str:
        """A GM sentence for an action."""
        setup = combat.tables
        cat = catalogue_of(setup)
        text = cat.texts.get(action)
        if text is None:
            m = cat.meta.get(action)
            if m is None:
                return action.describe()
            text = cat.texts[action] = self._describe(m)
        return text

    @staticmethod
    def _describe(m: Meta) -> str:
        """The sentence of a catalogue action (it depends on the action only, so it is cached per action)."""
        v = m.verb
        if v in WORDS:
            return WORDS[v]
        if v in (Verb.STEP, Verb.MOVE):
            return f"{v}s to {list(m.cell)}"
        sentence = SENTENCES.get(v)
        text = f"{v}s {m.target}" if sentence is None else sentence.format(head=m.head, dir=m.dir, target=m.target)
        if m.head and v in (Verb.MELEE, Verb.SHOOT, Verb.PURSUE, Verb.PURSUIT_ATTACK):
            text += f" ({m.head.replace('_', ' ')})"
        if m.when:
            text += f", stepping {m.dir} {'first' if m.when == 'before' else 'afterwards'}"
        if m.shots > 1:
            text += f", {m.shots} shots"
        return text

    # --- views ------------------------------------------------------------------------------------
    def order_values(self, combat: InvCombat) -> dict[str, str]:
        """Each combatant's DEX: initiative goes by DEX, ties broken by d100 (INV-2.1, INV-2.2)."""
        return {p.id: f"DEX {p.dex}" for p in combat.tables.profiles}

    def views(self, combat: InvCombat) -> list[CombatantView]:
        """Every combatant as a `CombatantView` (hp floored at 0 for display; it may be -1/-2 while dying)."""
        st: InvState = combat.state
        setup = combat.tables
        out = []
        conditions = flow.conditions
        for f, (cid, name, side, kind, max_hp) in zip(st.fighters, setup.view_heads()):
            dead, fled, dying, unconscious = f.dead, f.fled, f.dying, f.unconscious
            status = ("dead" if dead else "fled" if fled else "dying" if dying else
                      "unconscious" if unconscious else "prone" if f.prone else "ok")
            hp = f.hp
            # no condition at all (the usual case) without building the list; a status other than "ok" is one
            conds = (tuple(conditions(f)) if (status != "ok" or f.major_wound or f.full_mov_lockout
                                               or f.lose_next_standard or f.untreated_wound or f.channel_spell
                                               or f.bonus_to) else ())
            # tuple.__new__ skips the named tuple's Python-level __new__ (same fields, same order)
            out.append(_new_tuple(CombatantView, (cid, name, side, kind, f.pos,
                                                  hp if 0 <= hp <= max_hp else 0 if hp < 0 else max_hp, max_hp,
                                                  not (dead or fled or unconscious or dying), status, conds)))
        return out

    def action_catalogue(self, encounter: InvestigatorEncounter) -> list[Action]:
        """Every action that can be legal in this encounter, fixed order (see `catalogue`)."""
        return list(catalogue_of(compile_setup(encounter)).actions)

    combatant_features = 20

    def observe_combatants(self, combat: InvCombat, ids: list[str]) -> list[list[float]]:
        """20 features each: mp, luck, conditions, slots, weapon readiness, channeling, pending bonus."""
        setup = combat.tables
        idx, fighters, profiles = setup.idx, combat.state.fighters, setup.profiles
        return [_features(setup, fighters[i], profiles[i]) for i in map(idx.__getitem__, ids)]

    global_features = 9

    def observe_global(self, combat: InvCombat) -> list[float]:
        """9 features: round / cap, phase one-hot (3), decision kind one-hot (4), ground items present."""
        st: InvState = combat.state
        setup = combat.tables
        d = st.decision
        return [st.round / setup.opt.round_cap, *ONE_HOT3[PHASE_CODE.get(st.phase, 2)],
                *(ONE_HOT4[DECISION_CODE.get(d.step, 1)] if d is not None else NO_HOT4), B[bool(st.ground)]]


def _features(setup: Setup, f: Fighter, p: Profile) -> list[float]:
    """The 20 per-combatant features of `observe_combatant`."""
    it = None
    wid = f.wielded
    if wid != "unarmed":
        for w in f.weapons:
            if w.id == wid:
                it = w
                break
    if it is None:
        firearm = thrown = False
        loaded = 0.0
        jammed = 0.0
    else:
        wt = setup.weapons[it.template]
        kind = wt.kind
        firearm = kind == "firearm"
        thrown = kind == "thrown"
        loaded = it.loaded / (wt.capacity or 1) if firearm else 0.0
        jammed = B[it.jammed]
    return [
        f.mp / (p.max_mp if p.max_mp > 1 else 1), f.luck / 100.0, B[f.prone], B[f.unconscious], B[f.dying],
        B[f.major_wound], B[f.untreated_wound], B[f.channel_spell != ""], B[f.had_turn],
        B[f.prepare_used], B[f.move_used], B[f.standard_used < p.actions and not f.full_mov_lockout],
        B[f.opportunity_used], B[f.moved_long], B[firearm], B[thrown], loaded, jammed, B[bool(f.bonus_to)],
        p.mov / 10.0,
    ]


__all__ = ["DIRS", "InvestigatorSystem"]
