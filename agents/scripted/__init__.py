"""Scripted agents, one module per rule system; each registers itself as ``"scripted"`` for its system."""
