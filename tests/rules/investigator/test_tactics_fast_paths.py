"""The scripted investigator's fast paths choose exactly what the plain definitions choose.

`_movement` scores every square in numpy and draws a shooter's lines best bound first; the plain
definition scores each square in turn with `_square_score` and keeps the first of the highest score. No
square is scored when a ceiling on every square's score cannot beat staying; no square may score above it.
Attack estimates share work (the shots of one target from one square, a step after the attack and none, and
the odds of a shot kept per encounter from earlier decisions and games); each must equal the estimate worked
out on its own in a fresh look at the state, with no odds kept. The best attack is found
with the shots weighed best bound first; it must be the first attack of the highest score among them all, whether it
walks the legal set or takes it grouped by verb.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator

from trpg_arena.agents import make_agent
from trpg_arena.rules import Combat, Decision
from trpg_arena.rules.core.battlefield import chebyshev
from trpg_arena.rules.core.ranking import grouped_by_verb
from trpg_arena.rules.core.values import Action
from trpg_arena.rules.investigator.catalogue import catalogue_of
from trpg_arena.rules.investigator.legal import TurnActions
from trpg_arena.rules.investigator.tactics import NO_ATTACK, InvestigatorTactics


def _plain_movement(t: InvestigatorTactics, by_verb: dict[str, list[Action]]) -> tuple[Action, float] | None:
    me = t.me
    assert me.pos is not None
    options = t._move_options(by_verb)
    if not options:
        return None
    ranged, adj_now, target = t._move_context()
    here = t._square_score(me.pos, ranged, False, adj_now, target)
    best, best_sc = None, here + 0.5
    for a, dest, long in options:
        sc = t._square_score(dest, ranged, long, adj_now, target)
        if sc > best_sc:
            best, best_sc = a, sc
    return None if best is None else (best, best_sc - here)


def _scripted_decisions(games: tuple[tuple[str, range], ...]) -> Iterator[tuple[str, int, Combat, Decision]]:
    """Every decision of seeded scripted games, before the scripted agent acts on it (name, seed, combat,
    decision): the states the fast paths are checked on."""
    for name, seeds in games:
        for seed in seeds:
            c = Combat(name, seed=seed)
            agents = {side: make_agent("scripted", "investigator", seed=seed + i) for i, side in enumerate(c.sides)}
            while not c.over:
                d = c.decision
                assert d is not None
                yield name, seed, c, d
                c.act(agents[c.side_of(d.actor)].act(c))


def test_movement_and_estimates_match_the_plain_definitions() -> None:
    checked_moves = checked_attacks = 0
    probe = InvestigatorTactics()
    for _, _, c, d in _scripted_decisions((("investigator/skirmish", range(6)), ("investigator/brawl", range(3)))):
        legal = c.legal_actions()
        if d.step == "turn_action" and len(legal) > 1:
            probe._look(c)
            by_verb: dict[str, list[Action]] = {}
            for a in legal:
                by_verb.setdefault(a.verb, []).append(a)
            if not probe.me.move_used and probe.foes and probe._move_options(by_verb):
                assert probe._movement(by_verb) == _plain_movement(probe, by_verb)
                checked_moves += 1
            fast = probe.estimates(c, legal)
            for a, est in fast.items():
                catalogue_of(c.tables).shot_odds.clear()  # nothing kept from earlier decisions either
                probe._look(c)  # nothing shared: every estimate worked out on its own
                assert probe._estimate(a) == est, a
                checked_attacks += 1
    assert checked_moves > 50 and checked_attacks > 200


def test_no_square_scores_above_the_ceiling() -> None:
    """`_movement` scores no square when `_ceiling` cannot beat staying: no square may score above it, either way."""
    checked = passed_over = 0
    probe = InvestigatorTactics()
    for _, _, c, d in _scripted_decisions((("investigator/skirmish", range(5)), ("investigator/brawl", range(2)))):
        legal = c.legal_actions()
        if d.step != "turn_action" or len(legal) < 2:
            continue
        probe._look(c)
        by_verb = grouped_by_verb(legal)
        options = probe._move_options(by_verb)
        if probe.me.move_used or not probe.foes or not options:
            continue
        ranged, adj_now, target = probe._move_context()
        ceiling = probe._ceiling(ranged, target)
        steps = sum(1 for _, _, long in options if not long)
        assert probe._square_scores([a for a, _, _ in options], steps, ranged, adj_now, target).max() <= ceiling
        assert max(probe._square_score(dest, ranged, long, adj_now, target) for _, dest, long in options) <= ceiling
        assert probe.me.pos is not None
        passed_over += ceiling <= probe._square_score(probe.me.pos, ranged, False, adj_now, target) + 0.5
        checked += 1
    assert checked > 100 and passed_over > 30, (checked, passed_over)


def _first_best(scored: list[tuple[float, Action]]) -> tuple[Action | None, float]:
    """The first attack with the highest score (None, and the floor score, if there is none): the plain reading."""
    best: Action | None = None
    best_score = NO_ATTACK
    for sc, a in scored:
        if sc > best_score:
            best, best_score = a, sc
    return best, best_score


def test_best_attack_is_the_first_of_the_highest_score() -> None:
    checked = pruned = 0
    probe = InvestigatorTactics()
    games = (("investigator/skirmish", range(8)), ("investigator/brawl", range(3)))
    for name, seed, c, d in _scripted_decisions(games):
        legal = c.legal_actions()
        if d.step in ("turn_action", "phase_offer") and len(legal) > 1:
            probe._look(c)
            fast = probe._best_attack(legal)
            weighed = len(probe._estimates)
            probe._look(c)  # nothing shared: every attack scored in full
            full = probe._attack_scores(legal)
            assert fast == _first_best(full), (name, seed, d)
            pruned += len(probe._estimates) - weighed
            probe._look(c)  # a turn hands over its legal set grouped by verb: the attacks met in the same order
            assert probe._best_attack(legal, grouped_by_verb(legal)) == fast, (name, seed, d)
            checked += 1
    assert checked > 500 and pruned > 1000, (checked, pruned)


def test_adjacent_threats_match_the_plain_count() -> None:
    """The foes next to a square that could still strike, counted with the distance inline, on every square."""
    checked = 0
    probe = InvestigatorTactics()
    for _, _, c, d in _scripted_decisions((("investigator/skirmish", range(4, 5)),)):
        if d.step == "turn_action":
            probe._look(c)
            for ignore in ("", *(f.id for f in probe.foes[:1])):
                for pos in probe.s.bf.grid.cells:
                    plain = sum(1 for f in probe.foes if f.id != ignore and f.pos is not None
                                and chebyshev(f.pos, pos) == 1 and not f.opportunity_used and not f.channel_spell)
                    assert probe._adjacent_threats(pos, ignore) == plain, (pos, ignore)
                    checked += plain
    assert checked > 100


def test_a_turns_set_carries_the_groups_that_grouping_it_gives() -> None:
    """A turn's legal set notes its groups by verb as the rules build it; they are `grouped_by_verb`'s, verbs in
    the same order, and the set copies and pickles as the plain list it is."""
    checked = moved = 0
    for _, _, c, d in _scripted_decisions((("investigator/skirmish", range(4)), ("investigator/brawl", range(2)),
                                           ("investigator/duel", range(4)))):
        if d.step != "turn_action":
            continue
        legal = c.legal_view()
        assert isinstance(legal, TurnActions), type(legal)
        plain = list(legal)
        assert type(plain) is list and plain == legal
        want = grouped_by_verb(plain)
        assert list(legal.groups) == list(want)
        assert legal.groups == want
        back = pickle.loads(pickle.dumps(legal))
        assert type(back) is list and back == plain
        moved += "move" in want and "step" in want
        checked += 1
    assert checked > 200 and moved > 50, (checked, moved)
