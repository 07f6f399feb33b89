"""The kernel: dice, battlefield, values, encounters, the plugin contract and the combat state machine.

Its public names are re-exported by ``trpg_arena.rules``; import them from there.
"""
