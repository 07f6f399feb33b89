"""What a temperament's words mean in each rule system: leaving the fight, moving, attacking, healers, casters.

The shared layer (`agents.temperament`) works on actions and combatant views; these hooks tell it, per rule
system, which verbs leave the fight (and where the exits are), which verbs move the actor to their `dest`,
which actions attack or defend (what aggression shifts), and who counts as a healer or a caster by its
stat block in the encounter.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from trpg_arena.rules import Action, Combat
from trpg_arena.rules.reincarnator.movement import board as reincarnator_board

#: Words in a stat block's spells, abilities, skills or items that make it a healer.
HEALING_WORDS = ("heal", "mend", "cure", "first_aid", "medicine", "dressing", "salve", "restor")


@dataclass(frozen=True)
class SystemHooks:
    """One rule system's meaning of the temperament words."""

    leave: frozenset[str]  # verbs that take the actor out of the fight (flee, escape)
    moves: frozenset[str]  # verbs whose `dest` is where the actor ends up
    attacks: frozenset[str]  # offensive verbs that need no enemy target (the target is picked later)
    defends: frozenset[str]  # defensive verbs and options
    not_attacks: frozenset[str] = frozenset()  # verbs with an enemy target that are no attack
    caster: Callable[[dict[str, Any]], bool] = field(default=lambda block: False)
    exits_on_map: bool = True  # leaving needs an exit node (``exit`` attribute); moonlit leaves from anywhere
    # the exit cells where the system keeps its own set rather than ``exit`` attributes on the graph's nodes
    exit_cells: Callable[[Combat], list[Any]] | None = None
    barred: Callable[[Combat, dict[str, Any]], str | None] = field(default=lambda combat, block: None)


def _listed(block: dict[str, Any], *keys: str) -> bool:
    return any(bool(block.get(k)) for k in keys)


def _mentions_healing(block: dict[str, Any], *keys: str) -> bool:
    text = json.dumps([block.get(k) for k in keys]).lower()
    return any(word in text for word in HEALING_WORDS)


def _moonlit_caster(block: dict[str, Any]) -> bool:
    from trpg_arena.rules.moonlit.data import SKILLS

    return any(s in SKILLS and (SKILLS[s].type == "mental" or SKILLS[s].category == "normal")
               for s in block.get("skills") or ())


def _moonlit_barred(combat: Combat, block: dict[str, Any]) -> str | None:
    """Why a moonlit combatant can never escape (MOON-4.3), or None."""
    if not getattr(combat.encounter.options, "moon_escape_enabled", True):
        return "escape is switched off in this encounter (moon_escape_enabled: false)"
    if block.get("can_escape") is False:
        return "its stat block cannot escape (can_escape: false)"
    return None


def _reincarnator_exits(combat: Combat) -> list[Any]:
    """Reincarnator's exits: the cells marked ``exit`` and, unless the map says otherwise, its edges (section 0)."""
    return sorted(reincarnator_board(combat).exits)


def _kiai_caster(block: dict[str, Any]) -> bool:
    """A spell among its abilities (techniques such as a shout are no casting)."""
    return any(isinstance(a, dict) and a.get("kind") == "spell" for a in block.get("abilities") or ())


HOOKS: dict[str, SystemHooks] = {
    "investigator": SystemHooks(
        leave=frozenset({"flee"}), moves=frozenset({"move", "step"}),
        attacks=frozenset({"fight_back"}), defends=frozenset({"dodge"}),
        not_attacks=frozenset({"pass_item", "first_aid"}),
        caster=lambda b: _listed(b, "spells")),
    "kiai": SystemHooks(
        leave=frozenset({"flee"}), moves=frozenset({"move", "run"}),
        attacks=frozenset({"counter", "attack_defense", "use_ability"}),
        defends=frozenset({"dodge", "concentrate_dodge"}),
        caster=_kiai_caster),
    "moonlit": SystemHooks(
        leave=frozenset({"escape"}), moves=frozenset({"move"}),
        attacks=frozenset({"attack", "counter", "coup_de_grace"}),
        defends=frozenset({"dodge:guard_stance", "dodge:iron_body", "dodge:origin_stop", "stay"}),
        not_attacks=frozenset({"use_item", "use_skill", "interrupt"}),
        caster=_moonlit_caster, exits_on_map=False, barred=_moonlit_barred),
    "reincarnator": SystemHooks(
        leave=frozenset({"leave_battlefield"}),
        moves=frozenset({"move", "acro_move", "crawl", "stealth_walk", "climb_jump", "reflex_step"}),
        attacks=frozenset({"throw"}),
        defends=frozenset({"full_defense", "parry", "acro_parry", "take_cover", "go_prone", "crouch",
                           "reflex_step"}),
        not_attacks=frozenset({"delay", "take_cover"}),
        caster=lambda b: _listed(b, "spells"), exit_cells=_reincarnator_exits),
}

_GENERIC = SystemHooks(leave=frozenset({"flee", "escape"}), moves=frozenset({"move"}), attacks=frozenset(),
                       defends=frozenset({"dodge"}))


def hooks(ruleset: str) -> SystemHooks:
    """The hooks of a rule system (a generic reading for one without its own)."""
    return HOOKS.get(ruleset, _GENERIC)


def stat_block(combat: Combat, cid: str) -> dict[str, Any]:
    """A combatant's entry in the encounter as JSON (empty for a summon: it is neither healer nor caster)."""
    cache: dict[str, dict[str, Any]] = combat.__dict__.setdefault("_temperament_blocks", {})
    found = cache.get(cid)
    if found is None:
        found = next((c.model_dump(mode="json") for c in combat.encounter.combatants if c.id == cid), {})
        cache[cid] = found
    return found


def barred(combat: Combat, cid: str) -> str | None:
    """Why a combatant can never leave this fight (the system's rule), or None."""
    return hooks(combat.encounter.ruleset).barred(combat, stat_block(combat, cid))


def is_caster(combat: Combat, cid: str) -> bool:
    """Whether the stat block casts spells or uses magic abilities (the system's reading)."""
    return hooks(combat.encounter.ruleset).caster(stat_block(combat, cid))


def is_healer(combat: Combat, cid: str) -> bool:
    """Whether the stat block can heal others: a healing spell, ability, skill or item."""
    return _mentions_healing(stat_block(combat, cid), "spells", "abilities", "skills", "items")


def kind_of(combat: Combat, action: Action, enemies: set[str]) -> str:
    """``attack``, ``defend`` or ``other``: what aggression weighs."""
    h = hooks(combat.encounter.ruleset)
    option = action.option if isinstance(action.option, str) else None
    if action.verb in h.defends or (option is not None and f"{action.verb}:{option}" in h.defends):
        return "defend"
    if action.verb in h.attacks:
        return "attack"
    if action.target in enemies and action.verb not in h.not_attacks:
        return "attack"
    return "other"


def exits(combat: Combat) -> list[Any]:
    """The battlefield's exit nodes (``exit`` attribute), cached on the combat's battlefield."""
    bf = combat.battlefield
    found = bf.__dict__.get("_temperament_exits")
    if found is None:
        own = hooks(combat.system.info.id).exit_cells
        found = own(combat) if own is not None else [n for n in bf.graph.nodes if bf.attr(n, "exit")]
        bf.__dict__["_temperament_exits"] = found
    return list(found)
