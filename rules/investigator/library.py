"""The data library: reference weapons, spells, techniques and default skills, loaded once at import."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from trpg_arena.rules.investigator.model import SpellModel, TechniqueModel, WeaponModel

DATA = Path(__file__).parent / "data"


@dataclass(frozen=True)
class Library:
    """Templates every encounter may name without defining them itself."""

    weapons: dict[str, WeaponModel]
    spells: dict[str, SpellModel]
    techniques: dict[str, TechniqueModel]
    default_skills: dict[str, int]


def _load(name: str) -> dict[str, Any]:
    return yaml.safe_load((DATA / name).read_text(encoding="utf-8")) or {}


def load_library() -> Library:
    """Read and validate the YAML files under ``data/``."""
    return Library(
        weapons={k: WeaponModel.model_validate(v) for k, v in _load("weapons.yaml").items()},
        spells={k: SpellModel.model_validate(v) for k, v in _load("spells.yaml").items()},
        techniques={k: TechniqueModel.model_validate(v) for k, v in _load("techniques.yaml").items()},
        default_skills={str(k): int(v) for k, v in _load("skills.yaml").items()},
    )


LIBRARY = load_library()
