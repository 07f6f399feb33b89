"""Learned values per rule system (numpy at play time, weights shipped in ``models/``) and the `trained` agent."""

from trpg_arena.agents.learned.model import ModelError, ValueModel, load_model
from trpg_arena.agents.learned.value import win_chance, win_chances

__all__ = ["ModelError", "ValueModel", "load_model", "win_chance", "win_chances"]
