"""NPC temperaments measured: many seeded games per rule system, counting what the tempered NPC does.

Each test plays the built-in encounters with scripted agents on both sides (the NPC's side tempered through
`agents.temperament.temper`, exactly as a session does) and counts the NPC's decisions: when it is eligible
(below its morale, an attack on its focus possible, a move to make) and what it chose.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from trpg_arena.agents.spec import make_agent
from trpg_arena.agents.temperament import focus_targets, temper, view_of
from trpg_arena.agents.temperament_systems import hooks, kind_of
from trpg_arena.rules import Action, Combat, Dice, EncounterError, load_encounter
from trpg_arena.table.session import Session, SessionError

# (rule system, built-in, NPC): an NPC that can leave the fight in each system (an exit on the map, or
# moonlit's escape roll with can_escape true)
RUNNERS = [("investigator", "skirmish", "ghoul", 0.75), ("kiai", "skirmish", "goblin_a", 0.7),
           ("moonlit", "skirmish", "count", 0.5), ("reincarnator", "skirmish", "brute", 0.5)]


def tempered(rid: str, name: str, tactics: dict[str, dict[str, Any]]) -> Any:
    data = load_encounter(f"{rid}/{name}").model_dump(mode="json")
    data["tactics"] = tactics
    return load_encounter(data)


def with_exits(rid: str, name: str) -> dict[str, Any]:
    """The built-in as data; investigator's skirmish gets exit squares along the cult's (right) edge."""
    data = load_encounter(f"{rid}/{name}").model_dump(mode="json")
    if rid == "investigator":
        data["map"]["exits"] = [[data["map"]["width"] - 1, y] for y in range(data["map"]["height"])]
    return data


def play(enc: Any, seed: int, npc: str, limit: int = 1500) -> Iterator[tuple[Combat, Action]]:
    """Each decision of `npc` in one scripted game (the combat before the action, the action), then the end."""
    combat = Combat(enc, dice=Dice(seed))
    agents = {side: temper(make_agent("scripted", enc.ruleset, seed), enc.tactics) for side in combat.sides}
    for _ in range(limit):
        d = combat.decision
        if d is None:
            return
        action = agents[combat.side_of(d.actor)].act(combat)
        if d.actor == npc:
            yield combat, action
        combat.act(action)
        # the combat object is the same throughout: after the last yield it is played on to the end


@pytest.mark.parametrize(("rid", "name", "npc", "morale"), RUNNERS)
def test_a_cowardly_npc_leaves_when_it_can(rid: str, name: str, npc: str, morale: float) -> None:
    data = with_exits(rid, name)
    plain = load_encounter(data)
    enc = load_encounter({**data, "tactics": {npc: {"morale": morale}}})
    leave = hooks(rid).leave
    eligible = left = fled = fled_plain = 0
    for seed in range(12):
        last = None
        for combat, action in play(enc, seed, npc):
            last = combat
            me = view_of(combat, npc)
            assert me is not None
            if me.hp < morale * me.max_hp and any(a.verb in leave for a in combat.legal_actions()):
                eligible += 1
                left += action.verb in leave
        fled += last is not None and _status(last, npc) == "fled"
        for combat, _ in play(plain, seed, npc):
            last = combat
        fled_plain += last is not None and _status(last, npc) == "fled"
    assert eligible >= 3, f"{rid}: the NPC was eligible to leave only {eligible} times"
    assert left / eligible >= 0.95, f"{rid}: left {left} of {eligible} times it could"
    assert fled > fled_plain, f"{rid}: fled {fled} of 12 games with morale {morale:.0%}, {fled_plain} without"


def _status(combat: Combat, npc: str) -> str:
    """The NPC's status in a combat (`play` leaves it at the end of the game once exhausted)."""
    found = view_of(combat, npc)
    return found.status if found is not None else "gone"


# (rule system, built-in, NPC, focus): chosen so that without the focus the NPC attacks someone else at times
FOCUSED = [("investigator", "skirmish", "ghoul", "casters"), ("kiai", "skirmish", "gorza", "gorou"),
           ("moonlit", "skirmish", "ghoul_1", "healers"), ("reincarnator", "skirmish", "rifleman", "strongest")]


@pytest.mark.parametrize(("rid", "name", "npc", "focus"), FOCUSED)
def test_a_focused_npc_attacks_its_focus_first_when_it_can(rid: str, name: str, npc: str, focus: str) -> None:
    enc = tempered(rid, name, {npc: {"focus": focus}})

    def count(e: Any) -> tuple[int, int]:
        could = chose = 0
        for seed in range(12):
            for combat, action in play(e, seed, npc):
                me = view_of(combat, npc)
                assert me is not None
                wanted, _ = focus_targets(combat, me, focus)
                enemies = {v.id for v in combat.combatants if v.side != me.side}
                attacks = [a for a in combat.legal_actions() if kind_of(combat, a, enemies) == "attack"
                           and a.target in enemies]
                if any(a.target in wanted for a in attacks) and action in attacks:
                    could += 1
                    chose += action.target in wanted
        return could, chose

    could, chose = count(enc)
    assert could >= 5, f"{rid}: an attack on its focus was possible only {could} times"
    assert chose == could, f"{rid}: attacked its focus {chose} of {could} times it attacked and could"
    could_plain, chose_plain = count(load_encounter(f"{rid}/{name}"))
    assert chose_plain < could_plain, f"{rid}: without a focus it attacked {focus} whenever it could anyway"


PROTECTORS = [("investigator", "skirmish", "ghoul", "priest"), ("kiai", "skirmish", "goblin_a", "shaman"),
              ("moonlit", "skirmish", "ghoul_1", "puppeteer"), ("reincarnator", "skirmish", "brute", "rifleman")]


@pytest.mark.parametrize(("rid", "name", "npc", "ally"), PROTECTORS)
def test_protect_keeps_the_npc_nearer_its_ally(rid: str, name: str, npc: str, ally: str) -> None:
    def mean_distance(e: Any) -> float:
        total = n = 0
        for seed in range(10):
            for combat, _ in play(e, seed, npc):
                me, other = view_of(combat, npc), view_of(combat, ally)
                if me is None or other is None or not other.able or me.node is None or other.node is None:
                    continue
                total += combat.battlefield.distance(me.node, other.node)
                n += 1
        assert n > 5
        return total / n

    near = mean_distance(tempered(rid, name, {npc: {"protect": ally}}))
    far = mean_distance(load_encounter(f"{rid}/{name}"))
    assert near < far, f"{rid}: {npc} stood {near:.2f} from {ally} on average with protect, {far:.2f} without"


@pytest.mark.parametrize("rid", ["investigator", "kiai", "moonlit", "reincarnator"])
def test_reckless_npcs_attack_more_than_cautious_ones(rid: str) -> None:
    enc = load_encounter(f"{rid}/skirmish")
    npcs = [c.id for c in enc.combatants if c.kind == "npc"]

    def attack_share(aggression: str) -> float:
        e = tempered(rid, "skirmish", {n: {"aggression": aggression} for n in npcs})
        attacks = total = 0
        for seed in range(6):
            combat = Combat(e, dice=Dice(seed))
            agents = {s: temper(make_agent("scripted", rid, seed), e.tactics) for s in combat.sides}
            for _ in range(1500):
                d = combat.decision
                if d is None:
                    break
                action = agents[combat.side_of(d.actor)].act(combat)
                if d.actor in npcs and len(combat.legal_actions()) > 1:
                    enemies = {v.id for v in combat.combatants if v.side != combat.side_of(d.actor)}
                    kind = kind_of(combat, action, enemies)
                    attacks += kind == "attack"
                    total += kind in ("attack", "defend")
                combat.act(action)
        return attacks / max(1, total)

    reckless, cautious = attack_share("reckless"), attack_share("cautious")
    assert reckless > cautious, (f"{rid}: reckless attacked in {reckless:.0%} of fights-or-defends, "
                                 f"cautious {cautious:.0%}")


def test_headless_play_follows_the_encounters_temperaments() -> None:
    """`play` (the runner's, the series' and the envs' driver) tempers its agents by the encounter itself."""
    from trpg_arena.table.session import play as play_out

    enc = tempered("reincarnator", "skirmish", {"brute": {"morale": 0.5}})
    fled = []
    for seed in range(12):
        combat = Combat(enc, dice=Dice(seed))
        play_out(combat, [make_agent("scripted", "reincarnator", seed) for _ in combat.sides])
        by_hand = None
        for seen, _ in play(enc, seed, "brute"):
            by_hand = seen  # the same combat object each time, played on to the end
        assert by_hand is not None and [e.text for e in combat.log] == [e.text for e in by_hand.log]
        fled.append(_status(combat, "brute") == "fled")
    assert any(fled), "the brute never fled in 12 games with morale 50 %"


def test_an_encounter_without_tactics_plays_exactly_as_before() -> None:
    for rid in ("investigator", "kiai", "moonlit", "reincarnator"):
        enc = load_encounter(f"{rid}/duel")
        a = Combat(enc, dice=Dice(3))
        b = Combat(enc, dice=Dice(3))
        plain = {s: make_agent("scripted", rid, 3) for s in a.sides}
        wrapped = {s: temper(make_agent("scripted", rid, 3), {}) for s in b.sides}
        while not a.over:
            a.act(plain[a.side_of(a.decision.actor)].act(a))
            b.act(wrapped[b.side_of(b.decision.actor)].act(b))
        assert b.over and [e.text for e in a.log] == [e.text for e in b.log]


def test_proposals_say_why_in_gm_sentences() -> None:
    enc = tempered("reincarnator", "skirmish", {"brute": {"morale": 0.9}})
    for seed in range(10):
        for combat, _ in play(enc, seed, "brute"):
            me = view_of(combat, "brute")
            if me is not None and me.hp < 0.9 * me.max_hp:
                p = temper(make_agent("scripted", "reincarnator", seed), enc.tactics).propose(combat)
                assert p.reasons[0].startswith("brute "), p.reasons
                assert "below 90 % HP" in p.reasons[0] and "morale 90 %" in p.reasons[0]
                return
    pytest.fail("brute never fell below 90 % HP in 10 games")


def test_search_agents_keep_to_the_focus() -> None:
    enc = tempered("kiai", "skirmish", {"gorza": {"focus": "casters"}})
    for spec in ("mcts:simulations=12", "trained:easy"):
        seen = 0
        for seed in range(2):
            combat = Combat(enc, dice=Dice(seed))
            scripted = {s: make_agent("scripted", "kiai", seed) for s in combat.sides}
            search = temper(make_agent(spec, "kiai", seed), enc.tactics)
            for _ in range(400):
                d = combat.decision
                if d is None:
                    break
                if d.actor == "gorza":
                    p = search.propose(combat)
                    action = p.action
                    if any(a.target == "mio" and a.verb == "attack" for a in combat.legal_actions()):
                        seen += 1
                        assert action.target in (None, "mio") or action.verb != "attack", (spec, action)
                        assert "focus casters" in p.reasons[0], p.reasons
                else:
                    action = scripted[combat.side_of(d.actor)].act(combat)
                combat.act(action)
        assert seen >= 1, f"{spec}: gorza never could attack mio"


def test_tactics_are_validated_with_located_errors() -> None:
    data = load_encounter("kiai/skirmish").model_dump(mode="json")
    data["combatants"][3]["tactics"] = {"focus": "nobody"}
    with pytest.raises(EncounterError, match=r"combatants\[3\] \(id 'gorza'\)\.tactics\.focus.*'nobody'"):
        load_encounter(data)
    data["combatants"][3]["tactics"] = {"morale": "lots"}
    with pytest.raises(EncounterError, match=r"tactics\.morale.*share of HP"):
        load_encounter(data)
    with pytest.raises(SessionError, match=r"tactics\.gorza\.protect: protect 'mio' is on side 'wanderers'"):
        Session("kiai/skirmish", tactics={"gorza": {"protect": "mio"}})


def test_the_session_keeps_its_temperaments_on_resume(tmp_path: Any) -> None:
    from trpg_arena.table.store import SessionStore

    store = SessionStore(tmp_path / "s.db")
    s = Session("kiai/skirmish", store=store, pc="scripted", tactics={"gorza": {"focus": "casters"}})
    s.set_tactics("goblin_a", {"aggression": "reckless", "morale": "30%"})
    s.run(max_decisions=20)
    again = Session.load(store, s.id or "")
    gorza = again.temperament("gorza")
    assert gorza is not None and gorza.focus == "casters"
    ghoul = again.temperament("goblin_a")
    assert ghoul is not None and ghoul.morale == 0.3 and ghoul.aggression == "reckless"
    s.run(max_decisions=30)
    again.run(max_decisions=30)
    assert [e.text for e in s.combat.log] == [e.text for e in again.combat.log]
    before = [e.text for e in s.combat.log]
    s.undo(10)  # undo takes decisions back, not the temperaments: the same choices are made again
    assert s.temperament("goblin_a") == ghoul
    s.run(max_decisions=10)
    assert [e.text for e in s.combat.log] == before
