"""A scripted reincarnator player that plays like a competent table-top player.

It aims before shooting, charges across open ground, takes cover or goes prone under fire, grapples and
pins casters, defends fully when badly hurt and strikes hard in the surprise round.

It reads the engine's own pool and defence functions to estimate each legal attack (expected net
successes), then follows a fixed priority list. Ties are broken by a seeded RNG of its own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trpg_arena.agents.base import Agent
from trpg_arena.agents.proposal import Proposal
from trpg_arena.agents.spec import register_agent
from trpg_arena.rules import Action, Combat
from trpg_arena.rules.reincarnator.actions import opts, uid
from trpg_arena.rules.reincarnator.attack import attack_pool, defences, throw_crushes
from trpg_arena.rules.reincarnator.conditions import grapple_between, rs
from trpg_arena.rules.reincarnator.data import static
from trpg_arena.rules.reincarnator.geometry import cheb
from trpg_arena.rules.reincarnator.grapple import policy_mode
from trpg_arena.rules.reincarnator.state import Pending

ATTACKS = ("melee_attack", "ranged_attack", "throw", "cast", "vehicle_attack", "acro_fire", "pin_strike",
           "grapple_strike", "charge", "acro_charge", "vehicle_crush")
P_SUCCESS = 1 / 3  # expected successes per die with 8+ and 10-again


@register_agent("scripted", ruleset="reincarnator")
class ReincarnatorScripted(Agent):
    """A competent, rule-aware reincarnator player."""

    def __init__(self, ruleset: str | None = None, rng: np.random.Generator | None = None,
                 seed: int | None = None) -> None:
        super().__init__(ruleset, rng if rng is not None else np.random.default_rng(seed))

    def propose(self, combat: Combat) -> Proposal:
        """The scripted choice."""
        return Proposal(self.act(combat), 0.0, ("the scripted policy's choice",))

    # --- helpers ------------------------------------------------------------------------------------
    def expected(self, combat: Combat, cid: str, a: Action) -> float:
        """Expected net successes of an attack action (weapon damage already in the pool)."""
        state = rs(combat)
        st = static(combat)
        o = tuple(uid(combat, cid, x) for x in opts(a))
        if a.target is None:
            return self.blast_value(combat, cid, a)
        p = Pending(a.verb, cid, target=a.target, weapon=o[0] if o else None)
        p.all_out = "all_out" in o
        if a.verb == "throw":
            p.attr, p.fast = o[1], "fast" in o
        p.into = next((x for x in o if x in ("careful", "random")), None)
        if a.verb in ("charge", "acro_charge"):
            p.bonus = min(3, max(0, st.specs[cid].base_defense - state.fighters[cid].bd_loss))
        if a.verb in ("pin_strike", "grapple_strike"):
            pool = 8.0 - (2 if a.verb == "grapple_strike" else 0)
            return pool * P_SUCCESS
        try:
            pool, _key, _ = attack_pool(combat, p, a.target)
            d, bd_es, _ = defences(combat, p, a.target)
        except (KeyError, AssertionError, AttributeError):
            return 0.0
        dice = pool - d
        value = dice * P_SUCCESS - bd_es * 0.8 if dice > 0 else 0.1
        if a.verb == "vehicle_crush" or (a.verb == "throw" and throw_crushes(combat, cid, st.items[o[0]])):
            value *= 0.7
        if a.verb == "throw" and st.items[o[0]].kind not in ("thrown", "object"):
            return 0.0  # never throw the own weapon away
        if a.verb in ("charge", "acro_charge"):
            value *= 0.85  # the base defence is lost afterwards
        if p.into == "random":
            value *= 0.5
        if a.target in state.vehicles:
            v = state.vehicles[a.target]
            left = st.vehicles[a.target].structure - v.lethal - v.bashing
            value *= 1.0 if left <= value + 1 else 0.25  # a hull soaks damage; wreck it only when nearly done
        if a.target in state.fighters:
            f = state.fighters[a.target]
            left = st.max_health[a.target] - f.lethal - f.bashing
            weapon = st.weapon(cid, o[0]) if o and a.verb != "cast" else None
            lethal = weapon is None or weapon.dtype == "lethal"
            value += 0.6 if left <= value + 0.5 else 0.0  # finishing blows first
            value *= 1.0 if lethal else 0.8
            if self.is_caster(combat, a.target):
                value += 0.4
        return value

    def blast_value(self, combat: Combat, cid: str, a: Action) -> float:
        """Enemies minus allies in a blast's reach, times a rough damage."""
        state = rs(combat)
        me = state.fighters[cid]
        c = a.dest
        score = 0.0
        for f in state.fighters.values():
            if f.cell is None or f.status != "active" or cheb(f.cell, c) > 2:
                continue
            score += 2.0 if f.side != me.side else -3.0
        return score

    @staticmethod
    def is_caster(combat: Combat, cid: str) -> bool:
        """Whether a combatant knows spells."""
        return bool(static(combat).spells.get(cid))

    @staticmethod
    def hurt(combat: Combat, cid: str) -> float:
        """Fraction of health left."""
        f = rs(combat).fighters[cid]
        mx = static(combat).max_health[cid]
        return (mx - f.lethal - f.bashing) / mx

    def pick(self, options: list[tuple[float, Action]]) -> Action:
        """Best by score, ties at random (own RNG)."""
        best = max(s for s, _ in options)
        top = [a for s, a in options if s >= best - 1e-9]
        return top[int(self.rng.integers(len(top)))]

    # --- the policy ---------------------------------------------------------------------------------
    def act(self, combat: Combat) -> Action:
        """Choose an action for the current decision."""
        legal = combat.legal_actions()
        d = combat.decision
        assert d is not None
        if len(legal) == 1:
            return legal[0]
        if d.step == "grapple_resist":
            mode = policy_mode(combat, d.actor, "")
            return Action("grapple_resist", option=mode)
        if d.step == "attack_declared":
            return self.react(combat, d.actor, legal)
        return self.turn(combat, d.actor, legal)

    def react(self, combat: Combat, cid: str, legal: list[Action]) -> Action:
        """Step out of an attacker's reach when possible (REI-5.7)."""
        state = rs(combat)
        p = state.pending[-1] if state.pending else None
        if p is None:
            return legal[0]
        src = state.fighters[p.actor].cell
        if src is None:
            return legal[0]
        steps = [(cheb(a.dest, src), a) for a in legal if a.verb == "reflex_step"]
        if not steps:
            return legal[0]
        far = max(steps, key=lambda x: x[0])
        return far[1] if far[0] > 1 else legal[0]

    def turn(self, combat: Combat, cid: str, legal: list[Action]) -> Action:  # noqa: C901 - a priority list
        """One decision of the own turn."""
        state = rs(combat)
        st = static(combat)
        me = state.fighters[cid]
        by: dict[str, list[Action]] = {}
        for a in legal:
            by.setdefault(a.verb, []).append(a)
        enemies = [f for f in state.fighters.values() if f.side != me.side and f.status == "active"
                   and f.cell is not None]
        # a delay never helps this policy
        # 1. out of a hold: escape with the better pool
        if "escape_grapple" in by:
            for a in by["escape_grapple"]:
                if a.option == policy_mode(combat, cid, a.target or ""):
                    return a
        # 2. get up when prone and enemies are adjacent
        if me.prone and "stand_from_prone" in by and any(cheb(f.cell, me.cell) <= 1 for f in enemies):
            return by["stand_from_prone"][0]
        # 3. reload an empty gun (spare magazines are precious), chamber a round
        for a in by.get("reload", []) + by.get("reload_heavy", []):
            if state.items[uid(combat, cid, a.option)].loaded == 0:
                return a
        for a in by.get("cycle_bolt", []):
            return a
        if "draw" in by and not any(st.items[k].is_ranged or st.items[k].kind == "melee"
                                    for k, it in state.items.items() if it.holder == cid and it.loc == "held"):
            return by["draw"][0]
        # 4. a grenade ready for a cluster of enemies
        grenade_ready = [a for a in by.get("retrieve", []) if st.items[uid(combat, cid, a.option)].blast]
        values: dict[tuple[Any, ...], float] = {}  # targeted attacks differing only in the end cell score alike

        def value_of(a: Action) -> float:
            if a.target is None:
                return self.expected(combat, cid, a)
            k = (a.verb, a.target, a.option)
            v = values.get(k)
            if v is None:
                v = values[k] = self.expected(combat, cid, a)
            return v

        attacks = [(value_of(a), a) for v in ATTACKS for a in by.get(v, [])]
        best_attack = max((s for s, _ in attacks), default=0.0)
        if grenade_ready and best_attack < 2.5 and sum(1 for f in enemies if f.cell and me.cell
                                                        and cheb(f.cell, me.cell) <= 14) >= 2:
            return grenade_ready[0]
        # 5. badly hurt with nothing good to do: full defence
        if self.hurt(combat, cid) <= 0.3 and best_attack < 1.2 and "full_defense" in by:
            return by["full_defense"][0]
        # 6. grapple a dangerous caster in reach, then pin and strike
        for a in by.get("pin", []):
            return a
        for a in by.get("grapple", []):
            if a.option is None and a.target and self.is_caster(combat, a.target) and \
                    st.specs[cid].specialties.get("brawl", 0) >= 2:
                return a
        # 7. aim first when it is cheap (a trick or an unused swift) and a shot is coming
        if "aim" in by and not me.aimed:
            shots = [(s, a) for s, a in attacks if a.verb in ("ranged_attack", "throw") and a.target]
            if shots:
                s, shot = max(shots, key=lambda x: x[0])
                aim = Action("aim", target=shot.target)
                if aim in set(by["aim"]) and (me.slots.get("trick", 0) > 0 or me.slots.get("swift", 0) > 0):
                    return aim
        # 8. the best attack if it is worth it (not a charge when a plain attack is as good)
        if attacks:
            s, a = max(attacks, key=lambda x: (x[0], -ATTACKS.index(x[1].verb)))
            if s >= 0.6:
                top = [x for x in attacks if x[0] >= s - 1e-9]
                return top[int(self.rng.integers(len(top)))][1]
        # 9. drive a vehicle toward the enemy
        if me.in_vehicle is not None:
            for v in ("drive", "drive_fast"):
                if v in by and enemies:
                    return self.toward(by[v], enemies, keep=3)
        # 10. close in: melee fighters walk toward the nearest enemy; shooters find a clear line
        moving = by.get("move", []) + by.get("acro_move", [])
        if me.hidden and by.get("stealth_walk"):
            moving = by["stealth_walk"]  # stay hidden while closing in (REI-6.4)
        shooter = any(st.items[k].is_ranged and it.loaded > 0 for k, it in state.items.items()
                      if it.holder == cid and it.loc == "held") or bool(st.spells[cid])
        if moving and enemies and not me.moved and not shooter:
            return self.toward(moving, enemies, keep=1)
        if moving and enemies and shooter and not me.moved and best_attack < 0.6 and me.slots.get("standard", 0):
            return self.toward(moving, enemies, keep=6)
        # 11. defensive use of leftovers: cover, prone for shooters, parry for fighters
        under_fire = any(self.shoots(combat, f.id) for f in enemies)
        if me.slots.get("move", 0) > 0:
            if "take_cover" in by and under_fire and me.cover_source is None:
                return by["take_cover"][0]
            if "crouch" in by and under_fire:
                return by["crouch"][0]
            if "go_prone" in by and shooter and under_fire and not any(
                    cheb(f.cell, me.cell) <= 2 for f in enemies):
                return by["go_prone"][0]
            if "acro_parry" in by:
                return by["acro_parry"][0]
            if "parry" in by and any(cheb(f.cell, me.cell) <= 2 for f in enemies):
                return by["parry"][0]
        return Action("end_turn")

    @staticmethod
    def shoots(combat: Combat, cid: str) -> bool:
        """Whether a combatant holds a loaded ranged weapon or knows a spell."""
        st = static(combat)
        state = rs(combat)
        return bool(st.spells.get(cid)) or state.fighters[cid].in_vehicle is not None or any(
            st.items[k].is_ranged and it.loaded > 0 for k, it in state.items.items()
            if it.holder == cid and it.loc == "held")

    def toward(self, moves: list[Action], enemies: list[Any], keep: int) -> Action:
        """The destination closest to `keep` metres from the nearest enemy."""
        def score(a: Action) -> tuple[int, int]:
            dist = min(cheb(a.dest, f.cell) for f in enemies)
            return (abs(dist - keep), dist)

        best = min(score(a) for a in moves)
        top = [a for a in moves if score(a) == best]
        return top[int(self.rng.integers(len(top)))]


__all__ = ["ReincarnatorScripted", "grapple_between"]
