"""The canonical codec: one observation and action layout per rule system, for every encounter of it.

Observation: the system's named feature vector (`trpg_arena.rules.core.features`, names in
`CanonicalCodec.feature_names`, documented in ``docs/features/<id>.md``) seen from the decider's side,
so one model plays either side. Actions: the system's canonical action layout
(`trpg_arena.rules.core.action_layout`): verbs x target rows x options x squares relative to the actor.
A mask is exact (true on the legal actions only) and decoding an index uses the same decision's table.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trpg_arena.agents.codec import Codec, action_index
from trpg_arena.rules import Action, Combat, EncounterBase, InvalidActionError, RuleSystem
from trpg_arena.rules.core.action_layout import ActionLayout, EncounterTables, action_layout_for, map_legal, tables_for
from trpg_arena.rules.core.compiled import compiled
from trpg_arena.rules.core.features import FeatureLayout, encode_rows, layout_for

CANONICAL_VERSION = 2  # the codec version models record: 1 was the per-encounter layout (`Codec`)
_COMBATS_KEPT = 64  # combats whose latest decision view a codec keeps (more envs than that share one rarely)


class _Decision:
    """The canonical view of one decision: the decider's observation, its rows and the legal indices."""

    __slots__ = ("actions", "combat", "count", "index", "mask", "obs", "side")

    def __init__(self, combat: Combat, count: int, side: str, obs: np.ndarray, index: np.ndarray,
                 actions: list[Action], mask: np.ndarray) -> None:
        self.combat, self.count, self.side, self.obs = combat, count, side, obs  # count and `actions` (the
        # legal list object, new after a rollback) tell whether the combat is still at this decision
        self.index, self.actions, self.mask = index, actions, mask


class CanonicalCodec:
    """Observation and action layout of a rule system, fitted to one encounter's catalogue (cached per encounter)."""

    kind = "canonical"

    def __init__(self, system: RuleSystem, encounter: EncounterBase) -> None:
        self.system = system
        self.encounter = encounter
        self.actions_layout: ActionLayout = action_layout_for(system)
        self.features: FeatureLayout = layout_for(system)
        self.tables: EncounterTables = tables_for(encounter)  # raises when the encounter does not fit
        self._catalogue = Codec.of(system, encounter)
        # The latest decision's view per combat: one codec serves every env of its encounter (it is cached
        # per encounter), and a vectorised trainer steps several envs, then asks each for its mask in turn.
        self._last: dict[int, _Decision] = {}

    @classmethod
    def of(cls, system: RuleSystem, encounter: EncounterBase) -> CanonicalCodec:
        """The codec of an encounter (built once per encounter content; raises if it does not fit the layout)."""
        built = compiled(encounter, system)
        return built.derive(f"canonical_codec:{action_layout_for(system).fingerprint}", lambda: cls(system, encounter))

    @classmethod
    def for_combat(cls, combat: Combat) -> CanonicalCodec:
        """The codec of a combat's encounter."""
        return cls.of(combat.system, combat.encounter)

    @property
    def n_actions(self) -> int:
        """Size of the Discrete action space (the same for every encounter of the system)."""
        return self.actions_layout.size

    @property
    def obs_size(self) -> int:
        """Length of the observation vector (the feature layout's size)."""
        return self.features.size

    @property
    def feature_names(self) -> tuple[str, ...]:
        """Name of every observation entry, in order."""
        return self.features.names

    def layout(self) -> dict[str, object]:
        """What a trained model depends on: sizes and fingerprints of both layouts (no encounter in it)."""
        return {"kind": self.kind, "codec_version": CANONICAL_VERSION, "actions": self.n_actions,
                "observations": self.obs_size,
                "fingerprint": f"{self.features.fingerprint}-{self.actions_layout.fingerprint}"}

    # --- per decision ---------------------------------------------------------------------------
    def _decision(self, combat: Combat) -> _Decision:
        """The current decision's view, computed once (observation from the decider's side, legal indices)."""
        last = self._last.get(id(combat))
        count = combat.decision_count
        d = combat.decision
        legal = combat.legal_view() if d is not None else []
        if last is not None and last.combat is combat and last.count == count and (d is None or last.actions is legal):
            return last
        mask = np.zeros(self.n_actions, dtype=np.int8)
        if d is None:
            side = combat.sides[0]
            obs = encode_rows(combat, side).vector
            last = _Decision(combat, count, side, obs, np.zeros(0, np.intp), [], mask)
        else:
            side = d.side if d.side is not None else combat.side_of(d.actor)
            obs, rows, node = encode_rows(combat, side)
            index = map_legal(self.actions_layout, self.tables, self._catalogue.indices(legal), rows, node)
            mask[index] = 1
            if np.count_nonzero(mask) != len(index):  # two legal entries share an index (cheaper than np.unique)
                self._check_distinct(legal, index, d.step)
            last = _Decision(combat, count, side, obs, index, legal, mask)
        if len(self._last) >= _COMBATS_KEPT and id(combat) not in self._last:
            self._last.clear()  # finished combats' views go; the live ones are rebuilt at their next decision
        self._last[id(combat)] = last
        return last

    def _check_distinct(self, legal: list[Action], index: np.ndarray, step: str) -> None:
        """Raise unless every index two legal entries share belongs to one action listed twice.

        (A legal list may repeat an action: reincarnator's brawl lists the same grapple strike twice at
        some decisions. That is one action and one index; two different actions must never share one.)
        """
        seen: dict[int, Action] = {}
        for a, i in zip(legal, index.tolist(), strict=True):
            other = seen.setdefault(i, a)
            if other != a:
                raise InvalidActionError(f"{self.system.info.id}: legal actions '{other.describe()}' and "
                                         f"'{a.describe()}' share canonical index {i} ({self.describe(i)}) at "
                                         f"{step}: a bug in the action layout")

    def observe(self, combat: Combat, side: str | None = None) -> np.ndarray:
        """Observation for `side` (the decider's side when None); a fresh array."""
        dec = self._decision(combat)
        if side is None or side == dec.side:
            return dec.obs.copy()
        return encode_rows(combat, side).vector

    def mask(self, combat: Combat) -> np.ndarray:
        """int8 mask over the action space: 1 exactly on the legal actions of the current decider (a fresh array)."""
        return self._decision(combat).mask.copy()

    def legal_indices(self, combat: Combat) -> np.ndarray:
        """Canonical index of every legal action, in `combat.legal_view()` order."""
        return self._decision(combat).index

    def decode(self, index: Any, combat: Combat) -> Action | None:
        """The legal action at an index of the current decision, or None when the index is not legal there.

        Raises `InvalidActionError` for something that is not an index of the action space.
        """
        i = action_index(index)
        if not 0 <= i < self.n_actions:
            raise InvalidActionError(f"action index {i} outside 0..{self.n_actions - 1}")
        dec = self._decision(combat)
        hits = np.flatnonzero(dec.index == i)
        return dec.actions[int(hits[0])] if len(hits) else None

    def encode(self, action: Action, combat: Combat) -> int:
        """Canonical index of a legal action of the current decision."""
        dec = self._decision(combat)
        for a, i in zip(dec.actions, dec.index.tolist(), strict=True):
            if a == action:
                return int(i)
        raise InvalidActionError(f"'{action.describe()}' is not legal at this decision")

    def describe(self, index: int) -> str:
        """What an index means in the layout (verb, target row, option slot, square offset)."""
        return self.actions_layout.describe(index)


__all__ = ["CANONICAL_VERSION", "CanonicalCodec"]
