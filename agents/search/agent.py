"""`mcts`: open-loop Monte Carlo tree search over the decisions of every side.

Each simulation copies the live combat with dice drawn from the agent's own generator (the live dice
are never read or advanced), walks the tree by the actions legal in the state it reaches, adds one
child (progressive widening, in the scripted agent's order), plays the scripted policy for `depth`
decisions and scores the result with the system's value function (`value.position_value`, or the
system's learned value: `value=learned`). With `prior=trained` the root's children are the `trained`
agent's scored candidates, its choice first (`rooted`), and the search leaves that choice only for
one clearly better; with `paired` every candidate is played on the same dice equally often and a
departure needs the trained agent's own estimate to agree (`_paired_search`). Every
decision is a tree level, whoever takes it: the several decisions of one turn, the reactions, the
opponent's replies. The subtree under the chosen action is kept and reused at the agent's next
decision when the log shows which decisions came between.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from trpg_arena.agents import deadline
from trpg_arena.agents.base import Agent, rng_state, set_rng_state
from trpg_arena.agents.proposal import Alternative, Proposal
from trpg_arena.agents.search.presets import BELOW, HELPS, LIMITS, PRESETS, RIVALS
from trpg_arena.agents.search.priors import prior_order
from trpg_arena.agents.search.rooted import has_model, trained_order, trained_scorer
from trpg_arena.agents.search.tree import Node, width
from trpg_arena.agents.search.value import position_value
from trpg_arena.agents.spec import agent_names, make_agent, register_agent
from trpg_arena.rules import Action, Combat, Dice

DECISION_EVENTS = ("decision", "auto_decision")
# the paired root leaves its anchor only for a mean gain of at least this much value (1 point of win chance)
PAIRED_FLOOR = 0.02


def win_estimate(q: float) -> float:
    """A mean value in [-1, 1] read as a chance of winning (a won playout is +1, a lost one -1)."""
    return max(0.0, min(1.0, (q + 1.0) / 2.0))


def _pct(p: float) -> str:
    """A chance as the reasons print it: a whole percentage."""
    return f"{round(100 * p)} %"


@register_agent("mcts", presets=PRESETS, helps=HELPS, limits=LIMITS)
class MCTSAgent(Agent):
    """Open-loop MCTS over both sides' decisions: a scripted or trained root, hand or learned playout values."""

    def __init__(self, ruleset: str | None = None, rng: np.random.Generator | None = None,
                 seed: int | None = None, simulations: int = 200, time_limit: float = 0.0, depth: int = 8,
                 c: float = 0.4, prior_weight: float = 0.5, widen: float = 1.0, alpha: float = 0.5,
                 temperature: float = 0.0, guard: float = 0.25, margin: float = 1.0, playout: str = "",
                 reuse: bool = True, value: str = "hand", prior: str = "scripted", candidates: int = 8,
                 samples: int = 32, paired: float = 0.0, below: str = "both", rivals: str = "above",
                 pin: int = 1) -> None:
        super().__init__(ruleset, rng if rng is not None else np.random.default_rng(seed))
        if simulations < 1:
            raise ValueError(f"mcts: simulations must be >= 1, got {simulations}")
        self.simulations = simulations
        self.time_limit = time_limit
        self.depth = depth
        self.c = c
        self.prior_weight = prior_weight
        self.widen = widen
        self.alpha = alpha
        self.temperature = temperature
        self.guard = guard
        self.margin = margin
        self.reuse = reuse
        # "auto" (the presets): the learned value and the trained agent's root where the system ships a model
        if value == "auto":
            value = "learned" if has_model(ruleset) else "hand"
        if prior == "auto":
            prior = "trained" if has_model(ruleset) else "scripted"
        self.value, self.prior, self.candidates, self.samples = value, prior, candidates, samples
        self.pin = pin
        self.paired = paired
        if below not in BELOW:
            raise ValueError(f"mcts: below must be one of {', '.join(BELOW)}, got {below!r}")
        self.below = below
        if rivals not in RIVALS:
            raise ValueError(f"mcts: rivals must be one of {', '.join(RIVALS)}, got {rivals!r}")
        self.rivals = rivals
        self._score = self._value_function(value, ruleset)
        if not playout:
            playout = "scripted" if ruleset is not None and "scripted" in agent_names(ruleset) else "random"
        # The playout policy also gives the priors; its RNG is seeded from ours and saved with our state.
        self.policy = make_agent(playout, ruleset, seed=int(self.rng.integers(2**31))) if ruleset else None
        self.scorer: Any = None  # the trained agent that picks the root's candidates (prior=trained)
        if prior == "trained":
            if ruleset is None:
                raise ValueError("mcts: prior=trained needs the rule system")
            model = value if value not in ("hand", "learned") else ""  # a model file scores the root as the leaves
            self.scorer = trained_scorer(ruleset, int(self.rng.integers(2**31)), candidates, samples, model,
                                         pin=bool(pin))
        self._root_chances: dict[Action, float] = {}  # the trained agent's estimate of each root candidate
        self._tree: Node | None = None
        self._mark: tuple[str, int, Action] | None = None  # (encounter, decision count, action) of our last choice

    # --- search ---------------------------------------------------------------------------------
    def propose(self, combat: Combat) -> Proposal:
        """The action the search rates best, its estimated chance of winning, reasons and runners-up."""
        legal = combat.legal_view()
        if len(legal) == 1:
            return Proposal(legal[0], 0.5, ("the only legal action",))
        started = time.perf_counter()
        root = self._reused_root(combat)
        reused = root.n
        root.clear_orders()
        if self.scorer is not None:  # the trained agent's candidates only, its choice first
            root.order, self._root_chances = trained_order(self.scorer, self.policy, combat)
            root.closed = True
        else:
            root.order = prior_order(self.policy, combat)  # the scripted choice at the live state comes first
        d = combat.decision
        assert d is not None  # more than one legal action: a decision is open
        if root.child(root.order[0]) is None:  # a reused subtree may lack it: the margin compares with it
            root.children.insert(0, Node(root.order[0], d.side))
        if root.closed and self.paired > 0:  # every candidate on the same dice, equally often
            pick, sims = self._paired_search(combat, root, started)
            guarded = False
            ranked = sorted((ch for ch in root.children if ch.n > 0 and ch.action in set(root.order)),
                            key=lambda ch: (ch is not pick, -ch.n, -ch.q))
        else:
            sims = 0
            # at least one playout, so that even a cut search answers with a rated action
            while sims < self.simulations and (sims == 0 or not self._out_of_time(started)):
                self._simulate(combat, root)
                sims += 1
            legal_set = set(root.order) if root.closed else set(legal)
            visited = [ch for ch in root.children if ch.n > 0 and ch.action in legal_set]
            ranked = sorted(visited, key=lambda ch: (-ch.n, -ch.q))
            pick, guarded = self._final(ranked, root.child(root.order[0]) if root.order else None)
        self._tree = pick
        self._mark = (combat.encounter.encounter, combat.decision_count, pick.taken)
        elapsed = time.perf_counter() - started
        return self._explain(combat, root, ranked, pick, sims, reused, elapsed, guarded)

    def _out_of_time(self, started: float) -> bool:
        """Our own `time_limit`, or the deadline of whoever asked (a server's request), has passed."""
        return bool(self.time_limit and time.perf_counter() - started > self.time_limit) or deadline.expired()

    def _paired_search(self, combat: Combat, root: Node, started: float) -> tuple[Node, int]:
        """The paired root: rounds of one dice seed, every contender simulated on it; the anchor kept unless beaten.

        UCB at a root of a few candidates starves the anchor once two unlucky playouts rate it low, and
        two playouts' spread passes for a standard error: on moonlit duels the search then left
        'attacks with strike' for 'delays' at estimated gains of +0.2 to +0.7 that play-outs to the end
        put at zero. Here the anchor and every rival the trained agent rates above it (the contenders)
        get the same playouts and the same dice (common random numbers, as the `trained` agent's
        samples), and a rival replaces the anchor only when its mean
        paired gain is `paired` standard errors wide, at least `PAIRED_FLOOR`, and has dice spread at all
        (without spread the gain is the value's judgement of two stopping points alone). Returns the
        choice and the simulations played.
        """
        d = combat.decision
        assert d is not None and root.order  # the trained agent's candidates
        # Two looks must agree: the trained agent's own estimate (its horizon, the end of the turn) rates the
        # rival above its choice, and the search's (`depth` decisions on) by `paired` standard errors. Either
        # look alone has a bias of its own: at a fixed depth the value rates a position with our attack still
        # to come above one after the exchange, so the search alone would delay where it should strike. A
        # rival the first look does not rate above the choice can never replace it, so it is not played out
        # (the same choices; on moonlit and reincarnator duels most decisions have no such rival at all).
        chances = self._root_chances
        anchor = chances.get(root.order[0], 0.0)
        if self.rivals == "all":  # playouts to the end of the fight: no horizon's bias for the first look to correct
            contenders = list(root.order)
        else:
            contenders = [root.order[0], *(a for a in root.order[1:] if chances.get(a, -1.0) > anchor)]
        kids = [root.child(a) or self._adopt(root, a, d.side) for a in contenders]
        if len(kids) == 1:
            return kids[0], 0
        # as many rounds as if every candidate were played: the test's power does not depend on how many agree
        rounds = max(1, self.simulations // len(root.order))
        values = np.zeros((len(kids), rounds))
        done = 0
        while done < rounds and (done == 0 or not self._out_of_time(started)):
            seed = int(self.rng.integers(2**63))
            for i, kid in enumerate(kids):
                values[i, done] = self._simulate(combat, root, kid, seed)
            done += 1
        if done < 2:
            return kids[0], done * len(kids)
        diffs = values[1:, :done] - values[0, :done]
        gain = diffs.mean(axis=1)
        se = diffs.std(axis=1, ddof=1) / math.sqrt(done)
        bound = np.where(se > 0, gain - self.paired * se, -np.inf)  # no spread: never a deviation
        best = int(np.argmax(bound))
        if bound[best] > 0 and gain[best] >= PAIRED_FLOOR:
            return kids[best + 1], done * len(kids)
        return kids[0], done * len(kids)

    def _scripted_here(self, side: str, us: str | None) -> bool:
        """Whether a decision of `side` below the root follows the scripted policy instead of the tree.

        A tree over the opponent's replies maximises the learned value's errors in the opponent's
        favour: on moonlit duels it rated 'attacks with strike' at 4 % (the other side's best-looking
        reaction, by a biased value) where play-outs by the script won every time, and the search
        delayed instead. `below=own` searches only our own later decisions, `none` none (the paired
        root only: a UCB root keeps its tree over both sides).
        """
        return self.below == "none" or (self.below == "own" and side != us)

    @staticmethod
    def _adopt(node: Node, action: Action, side: str | None) -> Node:
        """A new child of `node` for `action`, taken by `side`."""
        child = Node(action, side)
        node.children.append(child)
        return child

    def _simulate(self, combat: Combat, root: Node, first: Node | None = None, seed: int | None = None) -> float:
        """One playout from the live state (through `first` at the root if given, on dice `seed` if given).

        Returns the value for the side that chose the root's child it went through.
        """
        sim = combat.clone(dice=Dice(int(self.rng.integers(2**63)) if seed is None else seed))
        sim.recording = False
        path = [root]
        node = root
        if first is not None:  # the paired root: the child is given
            sim.act(first.taken)
            path.append(first)
            node = first
        # A given child visited for the first time is scored by a playout from it, as a newly expanded node
        # is: the tree grows below it only from its second round on.
        while sim.state.outcome is None and (first is None or node is not first or first.n > 0):
            legal_set = set(sim.legal_view())
            if node.closed and node.order is not None:  # a root kept to the trained agent's candidates
                legal_set &= set(node.order)
            d = sim.decision
            assert d is not None and d.side is not None  # the playout is not over
            side = d.side
            child = None
            if first is not None and node is not root and self._scripted_here(side, first.side):
                scripted = self.policy.act(sim) if self.policy is not None else sim.legal_view()[0]
                child = node.child(scripted) or self._adopt(node, scripted, side)
            elif sum(1 for ch in node.children if ch.action in legal_set) < width(node.n, self.widen, self.alpha):
                child = self._new_child(node, sim, legal_set, side)
            if child is None:
                child = node.select(legal_set, self.c, self.prior_weight)
            if child is None:  # nothing created here is legal in this sample of chance
                child = self._new_child(node, sim, legal_set, side)
            assert child is not None
            sim.act(child.taken)
            path.append(child)
            node = child
            if child.n == 0:
                break
        policy = self.policy
        for _ in range(self.depth):
            if sim.state.outcome is not None:
                break
            sim.act(policy.act(sim) if policy is not None else sim.legal_view()[0])
        values: dict[str, float] = {}
        for nd in path:
            nd.n += 1
            if nd.side is not None:
                v = values.get(nd.side)
                if v is None:
                    v = values[nd.side] = self._score(sim, nd.side)
                nd.w += v
                nd.w2 += v * v
        return values.get(path[1].side, 0.0) if len(path) > 1 and path[1].side is not None else 0.0

    @staticmethod
    def _value_function(value: str, ruleset: str | None) -> Any:
        """What scores a playout's end: the hand-written value, or a learned one read on the same [-1, 1] scale."""
        if value == "hand":
            return position_value
        if ruleset is None:
            raise ValueError("mcts: a learned value needs the rule system")
        from trpg_arena.agents.learned import load_model, win_chance

        model = load_model(ruleset, None if value == "learned" else value)
        return lambda combat, side: 2.0 * win_chance(model, combat, side) - 1.0

    def _new_child(self, node: Node, sim: Combat, legal: set[Action], side: str) -> Node | None:
        """A child for the most promising legal action not yet expanded here (None if every one is)."""
        for attempt in range(1 if node.closed else 2):
            if node.order is None or attempt == 1:
                fresh = prior_order(self.policy, sim)
                if node.order is None:
                    node.order = fresh
                else:  # the cached order came from another sample of chance: add what this state allows
                    known = set(node.order)
                    node.order.extend(a for a in fresh if a not in known)
            taken = {ch.action for ch in node.children}
            for a in node.order:
                if a in legal and a not in taken:
                    return self._adopt(node, a, side)
        return None

    def _final(self, ranked: list[Node], prior: Node | None) -> tuple[Node, bool]:
        """The most visited child (the prior's choice unless clearly worse), or one sampled at `temperature`.

        The guard keeps a won fight won: see `presets`.
        """
        robust = ranked[0]
        if prior is not None and prior is not robust and prior.n > 0:
            # A few noisy playouts must not override a sound heuristic: leave its choice only for one
            # better by `margin` standard errors of the difference.
            if robust.q - prior.q <= self.margin * math.hypot(robust.se, prior.se):
                robust = prior
        if self.temperature <= 0 or len(ranked) == 1:
            return robust, False
        visits = np.array([ch.n for ch in ranked], dtype=float)
        with np.errstate(over="ignore"):
            weights = visits ** (1.0 / self.temperature)
        if not np.isfinite(weights.sum()):  # a tiny temperature overflows: the same weights scaled by the largest
            weights = np.exp((np.log(visits) - np.log(visits.max())) / self.temperature)
        pick = ranked[int(self.rng.choice(len(ranked), p=weights / weights.sum()))]
        # Guard: when the fight looks won, never trade the best line for one clearly worse.
        if self.guard > 0 and win_estimate(robust.q) >= 0.75 and pick.q < robust.q - self.guard:
            return robust, True
        return pick, False

    # --- tree reuse -----------------------------------------------------------------------------
    def _reused_root(self, combat: Combat) -> Node:
        """The subtree the decisions since our last choice lead to, or a fresh root."""
        tree, mark = self._tree, self._mark
        self._tree = self._mark = None
        if not self.reuse or tree is None or mark is None or mark[0] != combat.encounter.encounter:
            return Node(None, None)
        gap = combat.decision_count - mark[1]
        if gap < 1:
            return Node(None, None)
        since: list[Any] = []
        for ev in reversed(combat.log):
            if len(since) == gap:
                break
            if ev.kind == "gm_edit":
                return Node(None, None)  # the GM changed the state by hand: the tree's playouts no longer hold
            if ev.kind in DECISION_EVENTS:
                since.append(ev)
        since.reverse()
        if len(since) < gap or since[0].kind != "decision" or Action.from_json(since[0].data["action"]) != mark[2]:
            return Node(None, None)  # the log was trimmed or not recorded, or this is another game
        node = tree
        for ev in since[1:]:
            if ev.kind == "decision":
                below = node.child(Action.from_json(ev.data["action"]))
                if below is None:
                    return Node(None, None)
                node = below
        node.action, node.side = None, None
        return node

    # --- explanation ----------------------------------------------------------------------------
    def _explain(self, combat: Combat, root: Node, ranked: list[Node], pick: Node, sims: int, reused: int,
                 elapsed: float, guarded: bool) -> Proposal:
        """The proposal a GM reads: the pick's estimate and the playouts behind it, the runner-up, the anchor's view.

        A paired root that played nothing (no candidate rated above the anchor) has no playout mean, so
        its estimate is the trained agent's own; the anchor's choice is named whenever the pick differs
        from it, so a departure from the trained (or scripted) choice is always visible.
        """
        describe = combat.system.describe
        prior_first = root.order[0] if root.order else None
        estimate = win_estimate(pick.q)
        if pick.n:
            reasons = [f"{describe(combat, pick.taken)}: {_pct(estimate)} estimated to win over "
                       f"{pick.n} of {sims + reused} playouts ({sims} new in {elapsed * 1000:.0f} ms"
                       + (f", {reused} kept from the last decision" if reused else "")
                       + f", {self.depth} decisions deep)"]
        else:  # the paired root played nothing: no candidate is rated above the trained agent's choice
            estimate = self._root_chances.get(pick.taken, 0.5)
            reasons = [f"{describe(combat, pick.taken)}: {_pct(estimate)} estimated to win by the trained agent "
                       f"(no other candidate rated above it, so no playouts; {elapsed * 1000:.0f} ms)"]
        others = [ch for ch in ranked if ch is not pick][:3]
        if others:
            best = others[0]
            reasons.append(f"next best: {describe(combat, best.taken)} ({_pct(win_estimate(best.q))}, "
                           f"{best.n} playouts)")
        if guarded:
            reasons.append("the fight looks won: the guard kept the safest line")
        elif prior_first is not None and prior_first != pick.action:
            rival = root.child(prior_first)
            tail = f" ({_pct(win_estimate(rival.q))}, {rival.n} playouts)" if rival is not None and rival.n else ""
            # the action's words are a phrase of their own ("uses quicken on kei"), not one to follow "would"
            reasons.append(f"the {self._anchor}'s choice: {describe(combat, prior_first)}{tail}")
        else:
            reasons.append(f"the {self._anchor} agrees")
        alts = sorted((Alternative(ch.taken, win_estimate(ch.q), f"{ch.n} playouts") for ch in others),
                      key=lambda a: -a.value)
        return Proposal(pick.taken, estimate, tuple(reasons), tuple(alts))

    @property
    def _anchor(self) -> str:
        """Who made the choice the search leaves only for a clearly better one, in the GM's words."""
        return "trained agent" if self.scorer is not None else "scripted policy"

    # --- saved state ----------------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        """The RNG, the playout policy's state, the root scorer's RNG and the subtree kept for the next decision."""
        mark = None if self._mark is None else [self._mark[0], self._mark[1], self._mark[2].to_json()]
        state = {"rng": rng_state(self.rng), "policy": None if self.policy is None else self.policy.get_state(),
                 "tree": None if self._tree is None else self._tree.to_json(), "mark": mark}
        if self.scorer is not None:  # its dice samples; its policy is ours, saved above
            state["scorer"] = rng_state(self.scorer.rng)
        return state

    def set_state(self, state: dict[str, Any]) -> None:
        """Continue from `get_state`'s value."""
        set_rng_state(self.rng, state["rng"])
        if self.policy is not None and state.get("policy") is not None:
            self.policy.set_state(state["policy"])
        if self.scorer is not None and state.get("scorer") is not None:
            set_rng_state(self.scorer.rng, state["scorer"])
        tree, mark = state.get("tree"), state.get("mark")
        self._tree = None if tree is None else Node.from_json(tree)
        self._mark = None if mark is None else (mark[0], int(mark[1]), Action.from_json(mark[2]))

