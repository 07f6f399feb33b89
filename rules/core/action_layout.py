"""The canonical action layout of a rule system: one numbering of actions that fits every encounter of it.

An encounter's own catalogue (`RuleSystem.action_catalogue`) names actions by combatant ids, board
squares and skill names, so its size and meaning change with the encounter. The canonical layout
numbers the same actions in blocks that do not depend on the encounter::

    index = base(block) + (target slot x options(block) + option slot) x squares(block) + square slot

- A **block** is a verb and which of its fields it uses: a combatant target, a square of the board
  (``ActionBlock``). A rule system declares its blocks in ``rules/<id>/features.py`` as ``ACTIONS``,
  naming each verb by its member of the system's `Verb` enum (``rules/<id>/verbs.py``), or reads
  them there from a data file (`read_spec`: ``rules/<id>/data/actions.yaml`` in the built-in systems).
- The **target slot** is the row the target has in the decider's feature vector
  (`trpg_arena.rules.core.features`: the actor 0, its allies 1.., its enemies after them), so
  "attack slot 8" always means the nearest able enemy, in any encounter.
- The **square slot** is the destination's offset from the actor, ``dx mod W + W x (dy mod H)`` for the
  system's map limit ``W x H``: one step east is always slot 1, one step west slot W - 1. A map that
  fits the limit gives every square its own slot from wherever the actor stands.
- The **option slot** is the rank of the action's option among the distinct options the verb offers
  at this decision, in the encounter catalogue's order (its k-th weapon, skill or manoeuvre that is
  available now). A target that is not a combatant (a zone, a vehicle) and a destination that is not
  a square (an offset from the target, a direction) count as part of the option.

Every legal action of a decision gets exactly one index and no two get the same (`map_legal` checks
it). An encounter that cannot fit (more combatants on a side than the feature layout holds, a map
bigger than the limit, an action in no declared block) is refused by `check` with a one-line reason;
a decision offering a verb more options than its block holds raises `ActionLimitError` naming them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from pydantic import Field, ValidationError

from trpg_arena.rules.core.compiled import compiled
from trpg_arena.rules.core.encounter import EncounterBase, StrictModel
from trpg_arena.rules.core.errors import TrpgArenaError
from trpg_arena.rules.core.features import FeatureLayout, features_module, layout_for
from trpg_arena.rules.core.library import read_table
from trpg_arena.rules.core.system import RuleSystem, get_ruleset
from trpg_arena.rules.core.values import Action, PlainStrEnum, remember

ACTION_LAYOUT_VERSION = 1  # bumped when the numbering scheme changes (it enters the fingerprint)


class ActionLimitError(TrpgArenaError, ValueError):
    """An encounter or a decision that does not fit a system's canonical action layout."""


class ActionBlock(NamedTuple):
    """One verb in one form: whether it names a combatant target and a square, and how many options it holds."""

    verb: PlainStrEnum  # the system's `Verb` member (its string is what actions carry)
    target: bool = False  # the action's target is a combatant (one slot per feature row)
    square: bool = False  # the action's dest is a square of the board (one slot per offset)
    options: int = 1  # distinct options the verb may offer at one decision


@dataclass(frozen=True)
class ActionSpec:
    """A rule system's canonical action layout (declared in ``rules/<id>/features.py`` as ``ACTIONS``)."""

    blocks: tuple[ActionBlock, ...]
    map_limit: tuple[int, int]  # W x H: the largest board whose every square has its own slot
    dest_in_option: tuple[PlainStrEnum, ...] = ()  # verbs whose dest is not a square of the board (part of the option)


class _BlockData(StrictModel):
    """One block as a data file writes it (a bare verb name is a block with neither target nor square)."""

    verb: str
    target: bool = False
    square: bool = False
    options: int = Field(1, ge=1)


class _SpecData(StrictModel):
    """An action layout as a data file writes it."""

    map_limit: tuple[int, int]
    dest_in_option: list[str] = []
    blocks: list[_BlockData | str]


def read_spec(path: Path, verbs: type[PlainStrEnum]) -> ActionSpec:
    """A system's action layout written as data (``rules/<id>/data/actions.yaml``), every verb one of `verbs`."""
    try:
        data = _SpecData.model_validate(read_table(path))
        blocks = tuple(ActionBlock(verbs(b)) if isinstance(b, str) else ActionBlock(verbs(b.verb), b.target, b.square,
                                                                                   b.options) for b in data.blocks)
        return ActionSpec(blocks, data.map_limit, tuple(verbs(v) for v in data.dest_in_option))
    except ValidationError as e:  # the file is part of the system's code: its first problem, on one line
        first = e.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"] if not str(p).startswith("_BlockData"))
        problem = f"{where}: {first['msg']}"
    except ValueError as e:  # a verb the system does not have
        problem = str(e)
    raise TrpgArenaError(f"{path}: not an action layout of {verbs.__module__}.{verbs.__name__}: {problem}")


@dataclass(frozen=True, eq=False)
class ActionLayout:
    """The canonical action numbering of one rule system (the same for every encounter of it)."""

    ruleset: str
    spec: ActionSpec
    features: FeatureLayout
    bases: tuple[int, ...]  # first index of every block
    size: int  # number of actions
    fingerprint: str
    base: np.ndarray  # intp per block: `bases`
    options: np.ndarray  # intp per block: its option slots
    squares: np.ndarray  # intp per block: its square slots (1 for a block without squares)

    @property
    def target_slots(self) -> int:
        """Target slots of a targeted block: one per feature row."""
        return len(self.features.rows)

    def block_size(self, b: int) -> int:
        """Indices of block `b`."""
        blk = self.spec.blocks[b]
        w, h = self.spec.map_limit
        return (self.target_slots if blk.target else 1) * blk.options * (w * h if blk.square else 1)

    def describe(self, index: int) -> str:
        """What an index means, e.g. ``attack target=enemy1 option#0`` (for docs and errors)."""
        if not 0 <= index < self.size:
            raise ActionLimitError(f"action index {index} outside 0..{self.size - 1}")
        b = int(np.searchsorted(self.bases, index, side="right")) - 1
        blk = self.spec.blocks[b]
        w, h = self.spec.map_limit
        squares = w * h if blk.square else 1
        rest = index - self.bases[b]
        t, rest = divmod(rest, blk.options * squares)
        o, d = divmod(rest, squares)
        parts: list[str] = [blk.verb]
        if blk.target:
            parts.append(f"target={self.features.rows[t]}")
        if blk.options > 1:
            parts.append(f"option#{o}")
        if blk.square:
            dx, dy = d % w, d // w
            parts.append(f"dest=({dx if dx <= w // 2 else dx - w:+d},{dy if dy <= h // 2 else dy - h:+d})")
        return " ".join(parts)

    def check(self, encounter: EncounterBase) -> None:
        """Raise `ActionLimitError` (or `FeatureLimitError`) if the encounter cannot fit the layout."""
        _tables(self, encounter)


def _spec_of(system: RuleSystem) -> ActionSpec:
    package, module = features_module(system)
    spec = getattr(module, "ACTIONS", None)
    if not isinstance(spec, ActionSpec):
        raise ActionLimitError(f"{system.info.id}: no canonical action layout (declare ACTIONS = ActionSpec(...) "
                               f"in {package.replace('.', '/')}/features.py, or use layout='encounter')")
    return spec


@cache
def _layout(system: RuleSystem) -> ActionLayout:
    spec = _spec_of(system)
    features = layout_for(system)
    keys = [(b.verb, b.target, b.square) for b in spec.blocks]
    if len(set(keys)) != len(keys):
        raise TrpgArenaError(f"{system.info.id}: an action block is declared twice")
    w, h = spec.map_limit
    options = np.array([b.options for b in spec.blocks], np.intp)
    squares = np.array([w * h if b.square else 1 for b in spec.blocks], np.intp)
    layout = ActionLayout(system.info.id, spec, features, (), 0, "", options, options, squares)
    bases, n = [], 0
    for b in range(len(spec.blocks)):
        bases.append(n)
        n += layout.block_size(b)
    text = "|".join(f"{b.verb}:{int(b.target)}{int(b.square)}:{b.options}" for b in spec.blocks)
    digest = hashlib.sha256(f"{system.info.id}|{ACTION_LAYOUT_VERSION}|{spec.map_limit}|{spec.dest_in_option}|"
                            f"{features.fingerprint}|{text}".encode())
    return ActionLayout(system.info.id, spec, features, tuple(bases), n, digest.hexdigest()[:16],
                        np.array(bases, np.intp), options, squares)


def action_layout_for(ruleset: str | RuleSystem) -> ActionLayout:
    """The canonical action layout of a rule system (by id or instance)."""
    system = ruleset if isinstance(ruleset, RuleSystem) else get_ruleset(ruleset)
    return _layout(system)


def square_of(node: Any, pos: Any) -> tuple[int, int]:
    """Integer board coordinates of a node: the node itself for a square, else its drawn position (a zone)."""
    if isinstance(node, tuple) and len(node) == 2 and all(isinstance(v, int) for v in node):
        return node
    return (round(pos[0]), round(pos[1]))


class _Columns(NamedTuple):
    """What `map_legal` reads of every catalogue action, precomputed once per encounter (intp arrays).

    An action's index is ``base + row x t_coef + option slot x o_coef + square slot x has_square``
    (`ActionLayout`'s formula expanded); `pair` numbers the catalogue's distinct (block, option)
    pairs in block, then option order, and `first` is the first pair of the action's block, so an
    option slot is the number of pairs offered at the decision between `first` and the action's own.
    """

    base: np.ndarray
    target: np.ndarray  # index in `EncounterTables.ids`; len(ids) for no target (its row is 0)
    t_coef: np.ndarray
    o_coef: np.ndarray  # 0 for a block of one option (its slot is always 0)
    has_square: np.ndarray
    pair: np.ndarray
    first: np.ndarray
    options: np.ndarray
    n_pairs: int
    rows_memo: dict[tuple[str | None, ...], np.ndarray]  # feature rows -> target index -> row
    options_memo: dict[bytes, np.ndarray | None]  # legal catalogue indices -> their option parts


_MEMO = 1024  # entries each memo keeps before it starts afresh (a memo lives as long as its encounter's tables)
_MEMO_LEGAL = 64  # legal sets up to this size have their option slots memoised: small ones repeat (reactions,
# short menus), large ones rarely do, and keeping them would cost memory for nothing


def _columns(layout: ActionLayout, block: np.ndarray, target: np.ndarray, key: np.ndarray, n_ids: int) -> _Columns:
    options = layout.options[block]
    squares = layout.squares[block]
    if len(block):
        pairs, pair = np.unique(np.stack([block, key], axis=1), axis=0, return_inverse=True)
        pair = pair.reshape(-1).astype(np.intp)
        first = np.searchsorted(pairs[:, 0], pairs[:, 0], side="left").astype(np.intp)[pair]
    else:
        pairs, pair, first = np.zeros((0, 2), np.intp), np.zeros(0, np.intp), np.zeros(0, np.intp)
    return _Columns(layout.base[block], np.where(target >= 0, target, n_ids),
                    options * squares, np.where(options > 1, squares, 0), (squares > 1).astype(np.intp), pair,
                    first, options, len(pairs), {}, {})


class EncounterTables(NamedTuple):
    """Per action of an encounter's catalogue: its block, target, option key and square (arrays)."""

    block: np.ndarray  # intp, block index
    target: np.ndarray  # intp, index of the target in `ids`, -1 for none
    key: np.ndarray  # intp, the option's rank among the block's distinct options in catalogue order
    sx: np.ndarray  # intp, square x (0 for none)
    sy: np.ndarray  # intp, square y
    ids: dict[str, int]  # every possible combatant id -> its index
    squares: dict[Any, tuple[int, int]]  # node -> board coordinates
    catalogue: tuple[Action, ...]
    stride: int  # more than any option key (block x stride + key is unique)
    columns: _Columns  # what `map_legal` reads of each action


def _tables(layout: ActionLayout, encounter: EncounterBase) -> EncounterTables:
    system = get_ruleset(encounter.ruleset)
    built = compiled(encounter, system)

    def build() -> EncounterTables:
        if encounter.ruleset != layout.ruleset:
            raise ActionLimitError(f"a {encounter.ruleset} encounter for the {layout.ruleset} action layout")
        layout.features.check(encounter)
        spec = layout.spec
        bf = built.battlefield
        nodes = bf.graph.nodes
        squares = {n: square_of(n, nodes[n].get("pos", (0, 0))) for n in nodes}
        w, h = spec.map_limit
        xs = [s[0] for s in squares.values()] or [0]
        ys = [s[1] for s in squares.values()] or [0]
        if max(xs) - min(xs) >= w or max(ys) - min(ys) >= h:
            raise ActionLimitError(f"{layout.ruleset}: encounter '{encounter.encounter}' has a "
                                   f"{max(xs) - min(xs) + 1} x {max(ys) - min(ys) + 1} map; the canonical action "
                                   f"layout holds maps up to {w} x {h}")
        ids = {cid: i for i, cid in enumerate(system.possible_ids(encounter))}
        for c in getattr(encounter, "all_specs", lambda: encounter.combatants)():
            ids.setdefault(c.id, len(ids))
        block_of: dict[tuple[str, bool, bool], int] = {(b.verb, b.target, b.square): i
                                                      for i, b in enumerate(spec.blocks)}
        catalogue = tuple(system.action_catalogue(encounter))
        n = len(catalogue)
        block, target, key = np.zeros(n, np.intp), np.full(n, -1, np.intp), np.zeros(n, np.intp)
        sx, sy = np.zeros(n, np.intp), np.zeros(n, np.intp)
        keys: dict[tuple[int, Any], int] = {}
        counts: dict[int, int] = {}
        folded = set(spec.dest_in_option)
        for i, a in enumerate(catalogue):
            is_target = a.target is not None and a.target in ids
            is_square = a.dest is not None and a.verb not in folded and a.dest in squares
            b = block_of.get((a.verb, is_target, is_square))
            if b is None:
                form = " ".join(s for s in ("a combatant target" if is_target else "",
                                            "a square" if is_square else "") if s) or "no target or square"
                raise ActionLimitError(f"{layout.ruleset}: encounter '{encounter.encounter}' offers '{a.describe()}' "
                                       f"({a.verb} with {form}), which no block of the canonical action layout "
                                       f"holds; use layout='encounter' for it")
            block[i] = b
            if is_target and a.target is not None:  # is_target says so; repeated for the type checker
                target[i] = ids[a.target]
            if is_square:
                sx[i], sy[i] = squares[a.dest]
            option = (None if is_target else a.target, a.option, None if is_square else a.dest)
            k = keys.get((b, option))
            if k is None:
                k = keys[(b, option)] = counts.get(b, 0)
                counts[b] = k + 1
            key[i] = k
        return EncounterTables(block, target, key, sx, sy, ids, squares, catalogue, max(counts.values(), default=0) + 1,
                               _columns(layout, block, target, key, len(ids)))

    return built.derive(f"action_layout:{layout.fingerprint}", build)


def tables_for(encounter: EncounterBase) -> EncounterTables:
    """The encounter's tables under its system's canonical layout (checked and built once per content)."""
    return _tables(action_layout_for(encounter.ruleset), encounter)


def map_legal(layout: ActionLayout, tables: EncounterTables, catalogue_index: np.ndarray,
              rows: Sequence[str | None], actor_node: Any) -> np.ndarray:
    """Canonical indices of the legal actions (given by their catalogue indices) at the current decision.

    `rows` are the combatant ids of the decider's feature rows (`encode_rows`), `actor_node` where the
    decider stands (None off the map). Raises `ActionLimitError` when the decision does not fit (a verb
    offering more options than its block holds).

    It runs at every env step: a few whole-array operations on precomputed columns, with the two parts
    that repeat from decision to decision memoised (the rows' order, the option slots of a legal set).
    """
    cols = tables.columns
    w, h = layout.spec.map_limit
    # target slot: the row of the target in the decider's feature vector
    key = tuple(rows)
    row_of = cols.rows_memo.get(key)
    if row_of is None:
        ids = tables.ids
        row_of = np.full(len(ids) + 1, -1, np.intp)
        row_of[-1] = 0  # the "no target" entry
        for r, cid in enumerate(rows):
            j = ids.get(cid) if cid is not None else None
            if j is not None:
                row_of[j] = r
        remember(cols.rows_memo, key, row_of, _MEMO)
    t_slot = row_of[cols.target[catalogue_index]]
    if t_slot.min(initial=0) < 0:
        bad = tables.catalogue[int(catalogue_index[t_slot < 0][0])]
        raise ActionLimitError(f"{layout.ruleset}: legal action '{bad.describe()}' targets a combatant with no row "
                               f"in the feature vector")
    # square slot: the destination's offset from the actor, wrapped by the map limit
    ax, ay = tables.squares.get(actor_node, (0, 0)) if actor_node is not None else (0, 0)
    ci = catalogue_index
    d_slot = (tables.sx[ci] - ax) % w + w * ((tables.sy[ci] - ay) % h)
    index = cols.base[ci] + t_slot * cols.t_coef[ci] + d_slot * cols.has_square[ci]
    # option slot: rank among the distinct options this decision offers, per block, in catalogue order
    if len(ci) > _MEMO_LEGAL:
        part = _option_part(layout, tables, cols, ci)  # raises for a decision beyond the limits
    else:
        legal_key = ci.tobytes()
        part = cols.options_memo.get(legal_key, _UNKNOWN)
        if part is _UNKNOWN:
            part = remember(cols.options_memo, legal_key, _option_part(layout, tables, cols, ci), _MEMO)
    if part is not None:
        index += part
    return index


_UNKNOWN = np.zeros(0, np.intp)


def _option_part(layout: ActionLayout, tables: EncounterTables, cols: _Columns,
                 catalogue_index: np.ndarray) -> np.ndarray | None:
    """Option slot x its coefficient for each legal action (None when no legal action's block has several)."""
    o_coef = cols.o_coef[catalogue_index]
    multi = np.flatnonzero(o_coef)
    if not len(multi):
        return None
    chosen = catalogue_index[multi]
    pair, first = cols.pair[chosen], cols.first[chosen]
    offered = np.zeros(cols.n_pairs, np.intp)
    offered[pair] = 1
    before = np.cumsum(offered) - offered  # offered pairs numbered below each pair
    o_slot = before[pair] - before[first]
    over = o_slot >= cols.options[chosen]
    if over.any():
        b = int(tables.block[chosen[over][0]])
        blk = layout.spec.blocks[b]
        n = int(o_slot[tables.block[chosen] == b].max()) + 1
        raise ActionLimitError(f"{layout.ruleset}: a decision offers {n} distinct options of '{blk.verb}' at "
                               f"once; the canonical action layout holds {blk.options}")
    part = np.zeros(len(catalogue_index), np.intp)
    part[multi] = o_slot * o_coef[multi]
    return part


def markdown(ruleset: str | RuleSystem) -> str:
    """The docs section of a system's canonical action layout (appended to ``docs/features/<id>.md``)."""
    layout = action_layout_for(ruleset)
    spec = layout.spec
    w, h = spec.map_limit
    lines = ["## Actions", "",
             f"- size: {layout.size} actions (`Discrete({layout.size})`), fingerprint `{layout.fingerprint}`",
             f"- map limit: {w} x {h} (a destination is its offset from the actor, dx mod {w} + {w} x (dy mod {h}))",
             f"- target slots: the {layout.target_slots} feature rows of the decider's vector (actor, allies, "
             f"enemies)"]
    if spec.dest_in_option:
        lines.append(f"- destinations that are part of the option: {', '.join(spec.dest_in_option)}")
    lines += ["", "index = first + (target slot x options + option slot) x squares + square slot; the option slot "
              "is the rank of the option among the distinct ones the verb offers at the decision, in the "
              "encounter catalogue's order.", "",
              "| first | verb | target | options | squares | size |", "|---|---|---|---|---|---|"]
    for b, blk in enumerate(spec.blocks):
        lines.append(f"| {layout.bases[b]} | `{blk.verb}` | {'row' if blk.target else '-'} | {blk.options} | "
                     f"{w * h if blk.square else '-'} | {layout.block_size(b)} |")
    return "\n".join(lines) + "\n"


__all__ = ["ACTION_LAYOUT_VERSION", "ActionBlock", "ActionLayout", "ActionLimitError", "ActionSpec",
           "EncounterTables", "action_layout_for", "map_legal", "markdown", "tables_for"]
