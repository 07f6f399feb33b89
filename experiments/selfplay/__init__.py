"""Self-play data for learned values: procedural encounters, the data writer and their commands.

``trpg-arena selfplay SYSTEM`` plays games through the series runner and writes, per decision
position, the features of `trpg_arena.rules.core.features` from the deciding side, the final outcome
from that side and the hand-written value's estimate (see docs/selfplay.md).
"""
