"""The data library: reference weapons, spells, techniques and default skills, loaded once at import."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trpg_arena.rules.core.library import read_table
from trpg_arena.rules.investigator.model import SpellModel, TechniqueModel, WeaponModel

DATA = Path(__file__).parent / "data"


@dataclass(frozen=True)
class Library:
    """Templates every encounter may name without defining them itself."""

    weapons: dict[str, WeaponModel]
    spells: dict[str, SpellModel]
    techniques: dict[str, TechniqueModel]
    default_skills: dict[str, int]


def load_library() -> Library:
    """Read and validate the YAML files under ``data/``."""
    return Library(
        weapons={k: WeaponModel.model_validate(v) for k, v in read_table(DATA / "weapons.yaml").items()},
        spells={k: SpellModel.model_validate(v) for k, v in read_table(DATA / "spells.yaml").items()},
        techniques={k: TechniqueModel.model_validate(v) for k, v in read_table(DATA / "techniques.yaml").items()},
        default_skills={str(k): int(v) for k, v in read_table(DATA / "skills.yaml").items()},
    )


LIBRARY = load_library()
