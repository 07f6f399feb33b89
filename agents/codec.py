"""Encounter-derived codecs between the engine and fixed-size spaces.

Action space: ``Discrete(n)`` where index i is the i-th entry of the rule system's
`action_catalogue(encounter)`, a fixed list of every action that can ever be legal in that encounter.

Observation (float32, every value clipped to [-1, 1]), from the point of view of one side:

=================  ======================================================================
offset             content
=================  ======================================================================
0                  round / round cap proxy (round / 20, clipped)
1                  1 if the decider is on the viewer's side
2 ..               rule system's global features (`global_features` values)
then, per slot     slot = `possible_ids(encounter)` order, `max_slots` slots of:
                   present, is the decider, allied to the viewer, able, hp / max_hp,
                   max_hp / 100, x / width, y / height, then the system's
                   `combatant_features` values
=================  ======================================================================
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field

import numpy as np

from trpg_arena.rules import Action, Combat, CombatantView, EncounterBase, InvalidActionError, RuleSystem
from trpg_arena.rules.core.compiled import compiled

CODEC_VERSION = 1  # bumped when the observation or action layout changes; models record it
GENERIC_SLOT = 8
GENERIC_GLOBAL = 2

_ONE, _MINUS_ONE = np.float32(1.0), np.float32(-1.0)


def action_index(value: object) -> int:
    """An action as an index: a Python or numpy integer, or a 0-d integer array (what `Discrete.contains` takes).

    A float, a string or a longer array is an `InvalidActionError`: ``int()`` would cut 2.9 to 2, or read "2",
    and play an action nobody chose.
    """
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, np.ndarray) and value.shape == () and np.issubdtype(value.dtype, np.integer):
        return int(value)
    raise InvalidActionError(f"action must be an integer index, got {value!r}")


@dataclass
class Codec:
    """Action and observation layout of one encounter (built once and cached on the encounter)."""

    system: RuleSystem
    actions: list[Action]
    index: dict[Action, int]
    ids: list[str]
    slot_of: dict[str, int]
    width: float
    height: float
    _masks: dict[int, tuple[list[Action], int, np.ndarray]] = field(default_factory=dict)
    _by_id: dict[int, int] = field(default_factory=dict)
    _kept: list[Action] = field(default_factory=list)
    _learning: bool = True

    def __post_init__(self) -> None:
        self._by_id = {id(a): i for i, a in enumerate(self.actions)}
        self._packer = struct.Struct(f"={self.obs_size}f")

    @classmethod
    def of(cls, system: RuleSystem, encounter: EncounterBase, width: int | None = None,
           height: int | None = None) -> Codec:
        """The codec of an encounter, built once per encounter content (kept with its compiled tables).

        The map size comes from the encounter's battlefield; `width` and `height`, when given, must match it.
        """
        built = compiled(encounter, system)
        bf = built.battlefield
        size = (bf.width or len(bf.graph), bf.height or 1)
        if (width, height) != (None, None) and (width, height) != size:
            raise ValueError(f"{system.info.id}: a {width} x {height} codec for a {size[0]} x {size[1]} map")

        def build() -> Codec:
            actions = list(system.action_catalogue(encounter))
            index = {a: i for i, a in enumerate(actions)}
            if len(index) != len(actions):
                raise ValueError(f"{system.info.id}: action catalogue has duplicates")
            ids = system.possible_ids(encounter)[: system.max_slots(encounter)]
            return cls(system, actions, index, ids, {c: i for i, c in enumerate(ids)},
                       float(max(1, size[0] - 1)), float(max(1, size[1] - 1)))

        return built.derive("codec", build)

    @classmethod
    def for_combat(cls, combat: Combat) -> Codec:
        """The codec of a combat's encounter."""
        return cls.of(combat.system, combat.encounter)

    @property
    def n_actions(self) -> int:
        """Size of the Discrete action space."""
        return len(self.actions)

    @property
    def obs_size(self) -> int:
        """Length of the observation vector."""
        s = self.system
        return GENERIC_GLOBAL + s.global_features + len(self.ids) * (GENERIC_SLOT + s.combatant_features)

    def layout(self) -> dict[str, object]:
        """What a trained model depends on: the sizes of both spaces and a fingerprint of their contents.

        Two encounters with the same layout (same action catalogue, same combatant slots) can share a
        policy; any other encounter cannot, and `PolicyAgent` says so instead of playing nonsense.
        """
        digest = hashlib.sha256()
        for a in self.actions:
            digest.update(repr(a).encode())
        digest.update(b"|" + "|".join(self.ids).encode() + f"|{self.obs_size}|{CODEC_VERSION}".encode())
        return {"codec_version": CODEC_VERSION, "actions": self.n_actions, "observations": self.obs_size,
                "fingerprint": digest.hexdigest()[:16]}

    def decode(self, index: int) -> Action:
        """Action for an index; out-of-range raises `InvalidActionError`."""
        i = action_index(index)
        if not 0 <= i < len(self.actions):
            raise InvalidActionError(f"action index {i} outside 0..{len(self.actions) - 1}")
        return self.actions[i]

    def encode(self, action: Action) -> int:
        """Index of an action (it must be in the catalogue)."""
        try:
            return self.index[action]
        except KeyError:
            raise InvalidActionError(f"'{action.describe()}' is not in this encounter's action space") from None

    def mask(self, combat: Combat) -> np.ndarray:
        """int8 mask over the action space: 1 exactly for the legal actions of the current decider."""
        m = np.zeros(len(self.actions), dtype=np.int8)
        if not combat.over:
            m[self.indices(combat.legal_view())] = 1
        return m

    def indices(self, legal: list[Action]) -> np.ndarray:
        """Catalogue indices of a legal list, memoised by list identity.

        Rule systems that hand back the same (memoised) list for an unchanged situation skip the
        per-action lookups. The memo holds a reference to each list, so an id is never reused while
        its entry lives.
        """
        memo = self._masks
        hit = memo.get(id(legal))
        if hit is not None and hit[0] is legal and hit[1] == len(legal):
            return hit[2]
        by_id = self._by_id
        try:
            idx = np.fromiter(map(by_id.__getitem__, map(id, legal)), np.intp, len(legal))
        except KeyError:
            get, lookup = by_id.get, self._lookup
            idx = np.array([i if (i := get(id(a))) is not None else lookup(a) for a in legal], dtype=np.intp)
        if len(memo) >= 1024:
            memo.clear()
        memo[id(legal)] = (legal, len(legal), idx)
        return idx

    def _lookup(self, action: Action) -> int:
        """Catalogue index of one action, learning its object's id for the next lookups.

        Rule systems build their legal lists from long-lived action tables, so the same objects come
        back decision after decision: an id lookup skips hashing the action's fields. Every id in
        `_by_id` belongs to an object that `actions` or `_kept` holds, so ids are never stale. A rule
        system that builds fresh objects every decision would only fill the table (and give the
        garbage collector more to scan), so learning stops once it holds a few catalogues' worth.
        """
        i = self.index[action]  # KeyError: not in the catalogue (callers turn it into InvalidActionError)
        if self._learning:
            kept = self._kept
            if len(kept) >= 2 * len(self.actions) + 1000:
                self._learning = False
                kept.clear()
                self._by_id = {id(a): j for j, a in enumerate(self.actions)}
            else:
                kept.append(action)
                self._by_id[id(action)] = i
        return i

    def _positions(self, combat: Combat) -> dict[object, tuple[float, float]]:
        pos = getattr(self, "_pos", None)
        if pos is None:
            nodes = combat.battlefield.graph.nodes
            pos = self._pos = {n: (nodes[n]["pos"][0] / self.width, nodes[n]["pos"][1] / self.height) for n in nodes}
        return pos

    def observe(self, combat: Combat, side: str | None) -> np.ndarray:
        """Observation vector for `side` (the decider's side when None)."""
        s = self.system
        d = combat.decision
        decider = d.actor if d is not None else None
        views = combat.combatants
        slot_of = self.slot_of
        by_slot: list[CombatantView | None] = [None] * len(self.ids)
        decider_side = None
        for view in views:
            if view.id == decider:
                decider_side = view.side
            slot = slot_of.get(view.id)
            if slot is not None:
                by_slot[slot] = view
        if side is None:
            side = decider_side if decider_side is not None else (views[0].side if views else "")
        flat = [min(combat.round / 20.0, 1.0), 1.0 if decider_side == side else 0.0]
        if s.global_features:
            flat += s.observe_global(combat)
        feats = s.combatant_features
        rows = iter(s.observe_combatants(combat, [v.id for v in by_slot if v is not None]) if feats else ())
        empty = [0.0] * (GENERIC_SLOT + feats)
        pos = self._positions(combat)
        off = (-1.0, -1.0)
        for v in by_slot:
            if v is None:
                flat += empty
                continue
            x, y = pos.get(v.node, off)
            mx = v.max_hp
            flat += (1.0, v.id == decider, v.side == side, v.able, v.hp / mx if mx else 0.0, mx / 100.0, x, y)
            if feats:
                flat += next(rows)
        out = np.empty(len(flat), dtype=np.float32)
        try:  # packing straight into the array's buffer is about twice as fast as np.array(list)
            self._packer.pack_into(out, 0, *flat)  # type: ignore[arg-type]  # an ndarray is a writable buffer
        except (OverflowError, struct.error):  # a feature beyond float32's range (or a wrong length)
            out = np.array(flat, dtype=np.float32)
        np.minimum(out, _ONE, out=out)
        np.maximum(out, _MINUS_ONE, out=out)
        return out
