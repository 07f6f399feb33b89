"""One shared object per distinct action (`core.values.shared_actions`): the catalogue and legal lists hand them out.

The rules build options as wire tuples; a new action's tuple option gets its type per verb (`verbs.typed_option`),
once, and the table is looked up by the wire tuple, so a lookup costs no more than it did.
"""

from __future__ import annotations

from trpg_arena.rules.core.values import shared_actions
from trpg_arena.rules.reincarnator.verbs import typed_option

act = shared_actions(typed_option)  # the shared `Action(verb, target, dest, option)`
