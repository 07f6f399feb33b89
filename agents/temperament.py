"""NPC temperaments in play: one shared layer that narrows and re-ranks an agent's candidate actions.

A combatant's `Tactics` (from the encounter's ``tactics:``, a seat override or the API) shapes each of its
decisions in three steps, the same for every agent:

1. **Morale.** Below its share of HP it leaves the fight: the system's leave action if legal (flee, escape,
   leave the battlefield), else a move towards the nearest exit; with no way out it fights cautiously.
2. **Focus and protect** narrow the candidates: attacks on the focused enemies only (when any is
   possible), moves that keep it by its protected ally (or bring it closer).
3. **Aggression** re-ranks what is left: the agent's own ranking (its choice first, then its scored
   runners-up) with a bonus for attacks (reckless, bold) or for defence (cautious).

`TemperedPolicy` applies this to an agent that ranks its candidates (the scripted agents: ``ranked``);
search agents (``mcts``, ``trained``) get a tempered policy, whose `allowed` set `prior_order` keeps their
candidates to, and their proposals carry the same sentence. A combatant without tactics plays exactly as
without this layer: nothing is computed for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from trpg_arena.agents.proposal import Proposal, proposal_of
from trpg_arena.agents.temperament_systems import barred, exits, hooks, is_caster, is_healer, kind_of
from trpg_arena.rules import Action, Combat, DecisionKind
from trpg_arena.rules.core.ranking import Ranking, Rival
from trpg_arena.rules.core.system import CombatantView
from trpg_arena.rules.core.temperaments import Aggression, Tactics

#: What aggression adds to a candidate's score, in places of the agent's own ranking (its choice scores 0, its
#: runner-up -1, ...; actions it did not rate -1000): a reckless NPC takes an attack the agent ranked up to four
#: places lower, a cautious one a defence up to one place lower (so it still attacks when nothing is to parry).
BIAS: dict[Aggression, dict[str, float]] = {
    Aggression.RECKLESS: {"attack": 4.5, "defend": -4.5},
    Aggression.BOLD: {"attack": 1.5, "defend": -1.5},
    Aggression.STEADY: {},
    Aggression.CAUTIOUS: {"attack": -0.5, "defend": 2.5},
}
UNRATED = -1000.0
CAUTIOUS_PLACE = -1.0  # where a cautious NPC, attacked or below half HP, ranks the defences its agent left unrated
NEAR = {"zones": 0, "square": 1, "hex": 1}  # "by an ally": in its zone, or adjacent on a grid
RETURN_BONUS = 2000.0  # a protector away from its ally takes a move back before anything else


def _pct(share: float) -> str:
    return f"{share * 100:g} %"


@dataclass(frozen=True)
class Shape:
    """What a temperament makes of one decision: the actions left, and the sentence that says why."""

    allowed: frozenset[Action] | None  # None: every legal action
    note: str = ""  # the GM sentence ("ghoul flees: below 25 % HP (6/26), morale 25 %")
    fleeing: bool = False
    cautious: bool = False  # below morale with no way out: fights cautiously
    prefer: frozenset[Action] = frozenset()  # moves back to a protected ally: ranked above the rest


def view_of(combat: Combat, cid: str) -> CombatantView | None:
    """A combatant's view, or None."""
    return next((v for v in combat.combatants if v.id == cid), None)


def _distance(combat: Combat, a: Any, b: Any) -> int | None:
    if a is None or b is None:
        return None
    try:
        return int(combat.battlefield.distance(a, b))
    except (KeyError, ValueError, TypeError):
        return None


def focus_targets(combat: Combat, me: CombatantView, focus: str) -> tuple[set[str], str]:
    """The enemies a focus names right now (able ones), and the words that explain it."""
    enemies = [v for v in combat.combatants if v.side != me.side and v.able]
    if focus == "weakest":
        low = min((v.hp for v in enemies), default=None)
        return {v.id for v in enemies if v.hp == low}, "the weakest enemy"
    if focus == "strongest":
        high = max((v.hp for v in enemies), default=None)
        return {v.id for v in enemies if v.hp == high}, "the strongest enemy"
    if focus == "nearest":
        dist = {v.id: _distance(combat, me.node, v.node) for v in enemies}
        known = [d for d in dist.values() if d is not None]
        near = min(known, default=None)
        return {cid for cid, d in dist.items() if d == near and near is not None}, "the nearest enemy"
    if focus == "healers":
        return {v.id for v in enemies if is_healer(combat, v.id)}, "a healer"
    if focus == "casters":
        return {v.id for v in enemies if is_caster(combat, v.id)}, "a caster"
    return {v.id for v in enemies if v.id == focus}, f"{focus}, named as its focus"


def shape(combat: Combat, tactics: Tactics, legal: list[Action]) -> Shape:
    """Morale, focus and protect applied to the open decision's legal actions (see the module docstring)."""
    d = combat.decision
    assert d is not None
    me = view_of(combat, d.actor)
    if me is None:
        return Shape(None)
    h = hooks(combat.encounter.ruleset)
    if tactics.morale > 0 and me.max_hp > 0 and me.hp < tactics.morale * me.max_hp:
        why = f"below {_pct(tactics.morale)} HP ({me.hp}/{me.max_hp}), morale {_pct(tactics.morale)}"
        leave = [a for a in legal if a.verb in h.leave]
        if leave:
            return Shape(frozenset(leave[:1]), f"{me.id} flees: {why}", fleeing=True)
        out = exits(combat) if h.exits_on_map else []
        here = min((d for d in (_distance(combat, me.node, x) for x in out) if d is not None), default=None)
        if here is not None:
            moves = {a: min(d for d in (_distance(combat, a.dest, x) for x in out) if d is not None)
                     for a in legal if a.verb in h.moves and a.dest is not None}
            best = min(moves.values(), default=None)
            if best is not None and best < here:
                toward = frozenset(a for a, dist in moves.items() if dist == best)
                return Shape(toward, f"{me.id} runs for the nearest exit ({best} away): {why}", fleeing=True)
        where = barred(combat, me.id) or ("it may try to escape at the next round's setup" if not h.exits_on_map
                                          else "no exit it can reach from here")
        return Shape(None, f"{me.id} is {why}, but {where}: it fights cautiously", cautious=True)
    allowed = set(legal)
    notes: list[str] = []
    if tactics.focus:
        wanted, words = focus_targets(combat, me, tactics.focus)
        enemies = {v.id for v in combat.combatants if v.side != me.side}
        aimed = [a for a in legal if a.target in enemies and kind_of(combat, a, enemies) == "attack"]
        on_focus = [a for a in aimed if a.target in wanted]
        if on_focus:
            allowed -= {a for a in aimed if a.target not in wanted}
            targets = sorted({a.target for a in on_focus if a.target is not None})
            notes.append(f"targets {' or '.join(targets)} first: {words} (focus {tactics.focus})")
    prefer: frozenset[Action] = frozenset()
    if tactics.protect:
        ally = view_of(combat, tactics.protect)
        if ally is not None and ally.able and ally.node is not None:
            near = NEAR.get(combat.battlefield.kind, 1)
            found = {a: _distance(combat, a.dest, ally.node) for a in legal
                     if a.verb in h.moves and a.dest is not None}
            moves = {a: dist for a, dist in found.items() if dist is not None}
            now = _distance(combat, me.node, ally.node)
            if moves:
                closest = min(moves.values())
                keep = {a for a, dist in moves.items() if dist <= max(near, closest)
                        and (now is None or dist <= max(now, near))}
                allowed -= set(moves) - keep
                if now is not None and now > near and closest < now:
                    prefer = frozenset(a for a in keep if moves[a] == closest)
                    notes.append(f"goes back to {ally.id} ({now} away): protect {ally.id}")
                elif keep != set(moves):
                    notes.append(f"stays by {ally.id}: protect {ally.id}")
    if allowed == set(legal):
        return Shape(None, "; ".join(notes), prefer=prefer)
    return Shape(frozenset(allowed), "; ".join(notes), prefer=prefer)


def _ranked(choice: Ranking, legal: list[Action]) -> tuple[list[tuple[float, Action]], dict[Action, float]]:
    """The agent's candidates by place, and the values it gave them (for the proposal).

    Its choice scores 0, its runners-up -1, -2, ..., the actions it did not rate `UNRATED`.
    """
    rivals: Iterable[Rival] = choice.rivals()
    best: dict[Action, float] = {}
    for r in rivals:
        if r[1] != choice.action and (r[1] not in best or float(r[0]) > best[r[1]]):
            best[r[1]] = float(r[0])
    order = [choice.action] + [a for a, _ in sorted(best.items(), key=lambda item: -item[1])]
    scored = [(-float(i), a) for i, a in enumerate(order)]
    seen = set(order)
    return scored + [(UNRATED, a) for a in legal if a not in seen], {**best, choice.action: float(choice.value)}


class TemperedPolicy:
    """An agent whose temperamental combatants' choices pass through the shared layer (others untouched)."""

    def __init__(self, inner: Any, tactics: Mapping[str, Tactics]) -> None:
        self.inner = inner
        self.tactics = tactics  # shared with the session: a changed temperament applies at once

    @property
    def spec(self) -> str:
        """The wrapped agent's spec (seats compare it)."""
        return str(getattr(self.inner, "spec", ""))

    @property
    def rng(self) -> Any:
        """The wrapped agent's generator."""
        return self.inner.rng

    def get_state(self) -> dict[str, Any]:
        """The wrapped agent's state (the layer itself remembers nothing)."""
        state: dict[str, Any] = self.inner.get_state()
        return state

    def set_state(self, state: dict[str, Any]) -> None:
        """Continue the wrapped agent from `get_state`'s value."""
        self.inner.set_state(state)

    def _of(self, combat: Combat) -> Tactics | None:
        d = combat.decision
        return None if d is None else self.tactics.get(d.actor)

    def allowed(self, combat: Combat) -> frozenset[Action] | None:
        """The actions the open decision's temperament leaves (None: no constraint)."""
        tactics = self._of(combat)
        if tactics is None:
            return None
        return shape(combat, tactics, combat.legal_actions()).allowed

    def ranked(self, combat: Combat) -> Ranking:
        """The inner agent's ranking re-weighed by the decider's temperament (the inner one as is without one)."""
        base = self._inner_choice(combat)
        tactics = self._of(combat)
        if tactics is None:
            return base
        legal = combat.legal_actions()
        if len(legal) == 1:
            return base
        s = shape(combat, tactics, legal)
        aggression = Aggression.CAUTIOUS if s.cautious else tactics.aggression
        bias = BIAS[aggression]
        if s.allowed is None and not bias and not s.prefer:
            return _with_note(base, s.note, base.action)
        d = combat.decision
        assert d is not None
        enemies = {v.id for v in combat.combatants if v.side != combat.side_of(d.actor)}
        ranked, worth = _ranked(base, legal)
        if aggression is Aggression.CAUTIOUS and _wary(combat):
            # attacked, or hurt: a cautious NPC weighs the defences its agent did not even rate
            ranked = [(CAUTIOUS_PLACE if v == UNRATED and kind_of(combat, a, enemies) == "defend" else v, a)
                      for v, a in ranked]
        pool = [(v, a) for v, a in ranked if s.allowed is None or a in s.allowed]
        if not pool:
            return _with_note(base, s.note, base.action)
        scored = [(v + bias.get(kind_of(combat, a, enemies), 0.0) + (RETURN_BONUS if a in s.prefer else 0.0), a)
                  for v, a in pool]
        _, action = max(scored, key=lambda x: x[0])  # first of equals: the agent's order
        note = s.note
        if (action != base.action and not s.fleeing and aggression is not Aggression.STEADY
                and (s.allowed is None or base.action in s.allowed)):  # aggression, not the filter, changed it
            why_aggr = (f"{aggression.value}: {kind_of(combat, action, enemies)}s rather than "
                        f"{combat.system.describe(combat, base.action)}")
            note = f"{note}; {why_aggr}" if note else why_aggr
        if action == base.action:
            return _with_note(base, note, action)
        chosen = action
        runners = [a for _, a in sorted(scored, key=lambda x: -x[0]) if a != chosen][:12]
        return Ranking(chosen, worth.get(chosen, 0.0), lambda: (note, f"{combat.system.describe(combat, chosen)}"),
                       lambda: [(worth.get(a, 0.0), a) for a in runners])

    def _inner_choice(self, combat: Combat) -> Ranking:
        choose = getattr(self.inner, "ranked", None)
        if choose is not None:
            choice: Ranking = choose(combat)
            return choice
        p: Proposal = self.inner.propose(combat)
        return Ranking(p.action, p.value, lambda: p.reasons, lambda: [(a.value, a.action) for a in p.alternatives])

    def act(self, combat: Combat) -> Action:
        """The tempered choice."""
        if self._of(combat) is None:
            action: Action = self.inner.act(combat)
            return action
        return self.ranked(combat).action

    def propose(self, combat: Combat) -> Proposal:
        """The tempered choice with its reasons (the temperament's sentence first) and runners-up."""
        if self._of(combat) is None:
            proposal: Proposal = self.inner.propose(combat)
            return proposal
        return proposal_of(self.ranked(combat), combat.system.choice_kind)


def _wary(combat: Combat) -> bool:
    """Whether the decision answers an attack, or the decider is below half its HP."""
    d = combat.decision
    if d is None:
        return False
    if d.kind is DecisionKind.REACTION:
        return True
    me = view_of(combat, d.actor)
    return me is not None and me.hp * 2 < me.max_hp


def _with_note(choice: Ranking, note: str, action: Action) -> Ranking:
    if not note:
        return choice
    why = choice.why
    return Ranking(action, choice.value, lambda: (note, *why()), choice.rivals)


class TemperedSearch:
    """A search agent (``mcts``, ``trained``) whose policy is tempered: its candidates obey the temperament."""

    def __init__(self, inner: Any, tactics: Mapping[str, Tactics]) -> None:
        self.inner = inner
        self.tactics = tactics
        if isinstance(inner.policy, TemperedPolicy):  # tempered before (attached to another combat): the new map
            inner.policy.tactics = tactics
        else:
            inner.policy = TemperedPolicy(inner.policy, tactics)

    @property
    def spec(self) -> str:
        """The wrapped agent's spec."""
        return str(getattr(self.inner, "spec", ""))

    def get_state(self) -> dict[str, Any]:
        """The wrapped agent's state."""
        state: dict[str, Any] = self.inner.get_state()
        return state

    def set_state(self, state: dict[str, Any]) -> None:
        """Continue the wrapped agent from `get_state`'s value."""
        self.inner.set_state(state)

    def act(self, combat: Combat) -> Action:
        """The search's choice (its candidates already kept to the temperament)."""
        action: Action = self.inner.act(combat)
        return action

    def propose(self, combat: Combat) -> Proposal:
        """The search's proposal, with the temperament's sentence first where the combatant has one."""
        proposal: Proposal = self.inner.propose(combat)
        d = combat.decision
        tactics = None if d is None else self.tactics.get(d.actor)
        if tactics is None:
            return proposal
        note = shape(combat, tactics, combat.legal_actions()).note
        if not note:
            return proposal
        return Proposal(proposal.action, proposal.value, (note, *proposal.reasons)[:4], proposal.alternatives)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def temper(agent: Any, tactics: Mapping[str, Tactics] | None) -> Any:
    """`agent` with the temperaments of `tactics` applied; the agent itself when there are none."""
    if not tactics or isinstance(agent, (TemperedPolicy, TemperedSearch)):
        return agent
    if getattr(agent, "policy", None) is not None:
        return TemperedSearch(agent, tactics)
    return TemperedPolicy(agent, tactics)
