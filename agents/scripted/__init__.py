"""The built-in systems' scripted agents, one module per rule system, each named by its system's `scripted_agent`.

`trpg_arena.agents.plugins` registers them as ``"scripted"`` for their systems, as it does a new system's own.
"""
