"""A search rooted in the `trained` agent: its candidates are the root's only children, its choice first.

At the live decision the trained agent scores the scripted agent's best few actions by the learned
value averaged over dice samples (paired, one ply through the target's reaction). The search takes
those candidates, the trained agent's choice first (the anchor a deviation is measured against, see
`MCTSAgent._final`) and the rest by their estimated win chance, so its budget goes to checking whether
a runner-up really is better, not to actions that neither the script nor the value rates.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trpg_arena.rules import Action, Combat


def has_model(ruleset: str | None) -> bool:
    """Whether the rule system ships a learned value model (what `value=auto` and `prior=auto` look for)."""
    if ruleset is None:
        return False
    from trpg_arena.agents.learned.model import model_path

    return model_path(ruleset).is_file()


# The anchor is the system's `trained:hard` (since the presets' re-cut of 6 December the look that every
# `mcts` row before it calls `trained:normal`), never a tempered preset: its temperature is 0, and is set so
# here too, so a handicap of `trained` can never reach the search's root.
# investigator's `trained:hard` plays the other side's scripted reply before it scores (reply=1,
# horizon=24 in agents/learned/system_presets.py). The search's anchor where `pin` is set (the default)
# stays the look before that (the mover's turn only, horizon 12): the investigator `mcts` rows before
# the skirmish series at seed 3740000 (docs/strength.md: the duel's 66.0 % at seed 610000, the skirmish's
# ladder at seed 2600000, ...) were played with that anchor. `pin=0` lifts the pin, so the anchor is the
# system's `trained:hard` as its presets now stand. investigator's `mcts:hard` does, with 16 candidates
# (investigator's `preset_changes`, as `trained:deadly`'s), on its skirmish series against what was then
# `trained:hard` (now `trained:deadly`); `mcts:normal` and `mcts:deadly` keep the pin, not measured without it.
ANCHOR_PINS: dict[str, str] = {"investigator": "reply=0:horizon=12"}


def trained_scorer(ruleset: str, seed: int, candidates: int, samples: int, model: str, pin: bool = True) -> Any:
    """The trained agent that scores the root's candidates (the same model file as the leaves, if one is given).

    It is the system's `trained:hard` (its margin, z, look through the roll, ..., as that system's
    presets set them; no temperature) with the search's own `candidates` and `samples`: the presets'
    pairs are those of `trained`'s looks before the re-cut, so the search's anchor is that agent's
    choice. Where `ANCHOR_PINS` names the system and `pin` is set, those values of an earlier look hold
    instead of the preset's.
    """
    from trpg_arena.agents.learned.model import load_model
    from trpg_arena.agents.spec import make_agent

    pinned = f":{ANCHOR_PINS[ruleset]}" if pin and ruleset in ANCHOR_PINS else ""
    scorer = make_agent(f"trained:hard{pinned}:candidates={candidates}:samples={samples}:temperature=0", ruleset,
                        rng=np.random.default_rng(seed))
    if model:
        scorer.model = load_model(ruleset, model)
    return scorer


def trained_order(scorer: Any, policy: Any, combat: Combat) -> tuple[list[Action], dict[Action, float]]:
    """The trained agent's candidates at `combat`'s open decision: its choice, then the rest by win chance.

    Also each candidate's win chance by the trained agent's own estimate (empty where it had nothing to
    score). The scorer plays the candidates' turns with `policy`, the search's own (tempered, where
    the combatant has a temperament, so the candidates obey it).
    """
    scorer.policy = policy
    choice, ranked, _ = scorer.choose(combat)
    if not ranked:
        return [choice], {}
    return [s.action for s in ranked], {s.action: s.chance for s in ranked}
