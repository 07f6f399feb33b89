"""`# type: ignore` stays rare in the package and says why each time.

mypy checks the five folders as the `trpg_arena` package (`make lint`); an ignore hides what it would report,
so each one carries its reason, on its line after the pragma or in the comment line above it.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("rules", "agents", "table", "envs", "experiments", "server")
LIMIT = 19
PRAGMA = re.compile(r"#\s*type:\s*ignore(\[[^\]]*\])?")


def ignores(root: Path = ROOT) -> list[tuple[str, bool]]:
    """Every ignore in the package as ("file:line", whether a reason comes with it)."""
    found = []
    for top in TOPS:
        for path in sorted((root / top).rglob("*.py")):
            lines = path.read_text(encoding="utf-8").splitlines()
            for i, line in enumerate(lines):
                m = PRAGMA.search(line)
                if m is None:
                    continue
                after = line[m.end():].strip()
                above = lines[i - 1].strip() if i else ""
                reason = after.startswith("#") and len(after) > 2 or above.startswith("#")
                found.append((f"{path.relative_to(root)}:{i + 1}", reason))
    return found


def test_few_type_ignores_each_with_a_reason() -> None:
    found = ignores()
    assert len(found) <= LIMIT, f"{len(found)} type ignores (at most {LIMIT}): " + ", ".join(w for w, _ in found)
    bare = [where for where, reason in found if not reason]
    assert not bare, "type ignores without a reason: " + ", ".join(bare)


def test_the_count_sees_bare_and_explained_ignores(tmp_path: Path) -> None:
    for top in TOPS:
        (tmp_path / top).mkdir()
    (tmp_path / "rules" / "a.py").write_text("x = f()  # type: ignore[misc]\n"
                                             "y = g()  # type: ignore[misc]  # g is untyped upstream\n"
                                             "# h's stub lacks the keyword\n"
                                             "z = h(k=1)  # type: ignore\n")
    assert ignores(tmp_path) == [("rules/a.py:1", False), ("rules/a.py:2", True), ("rules/a.py:4", True)]
