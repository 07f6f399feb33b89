"""The documentation a user gets with a clone is complete and self-contained.

- No file of the project (tests aside) points to the specification folder that lives outside the
  repository (``../shared``, ``shared/spec``): readers follow ``docs/`` instead.
- Every relative link in the Markdown files resolves to an existing file, and an ``#anchor`` to a
  heading of that file; the index links every page under ``docs/``.
- Every rule id a rule system's code cites (``rule="MOON-8.7"``, ``# KIA-9.3``) is explained on its
  rules page, so a reader can go from an id in the code to its explanation.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SYSTEMS
from trpg_arena.rules import RULESETS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SPECS = ROOT.parent / "shared" / "spec" / "rulesets"  # the specification, when it sits next to the checkout

OUTSIDE_POINTER = re.compile(r"\.\./shared\b|\bshared/spec\b")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
SKIPPED_DIRS = {"tests", "runs", "build", "dist", "node_modules", "__pycache__"}


def project_files() -> list[Path]:
    """Tracked and new (not ignored) files outside ``tests/``; a walk of the tree without git."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                             capture_output=True, check=True).stdout.decode()
        paths = [ROOT / p for p in out.split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        paths = [p for p in ROOT.rglob("*")
                 if not any(part.startswith(".") or part.endswith(".egg-info") for part in p.relative_to(ROOT).parts)]
    return [p for p in paths if p.is_file() and p.relative_to(ROOT).parts[0] not in SKIPPED_DIRS]


def markdown_files() -> list[Path]:
    """Every Markdown page a user reads: the README, the docs and the rule systems' notes."""
    return sorted(p for p in project_files() if p.suffix == ".md")


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    # code and emphasis marks go; an underscore inside a word (moonlit_minds) is kept, as GitHub keeps it
    text = re.sub(r"[`*]|(?<!\w)_+|_+(?!\w)", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of a Markdown page's headings (outside code blocks)."""
    out: set[str] = set()
    in_code = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and (m := re.match(r"#{1,6}\s+(.*)", line)):
            out.add(slug(m.group(1)))
    return out


def links(page: Path) -> list[str]:
    """Relative link targets of a Markdown page (web and mail links left out, code blocks skipped)."""
    out: list[str] = []
    in_code = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if not in_code:
            out += [t for t in LINK.findall(line) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]
    return out


def rule_ids(text: str, prefix: str) -> set[str]:
    """Rule ids such as ``MOON-8.7`` or ``REI-2.10`` in `text` (acceptance scenarios ``MOON-T7`` excluded)."""
    return set(re.findall(rf"\b{prefix}-\d+(?:\.\d+)+[a-z]?\b", text))


def cited_ids(rid: str) -> set[str]:
    """Every rule id the code and data of one rule system cite."""
    info = RULESETS[rid].info
    found: set[str] = set()
    for f in Path(info.data_dir).rglob("*"):
        if f.is_file() and f.suffix in {".py", ".yaml", ".yml", ".json", ".md"}:
            found |= rule_ids(f.read_text(encoding="utf-8"), info.prefix)
    return found


def test_no_file_points_outside_the_repository() -> None:
    """Readers of a clone have no ``../shared`` folder: nothing outside the tests may send them there."""
    offenders = []
    for f in project_files():
        data = f.read_bytes()
        if b"\0" in data:
            continue  # a binary file
        for n, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            if OUTSIDE_POINTER.search(line):
                offenders.append(f"{f.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, "files point to the specification outside the repository:\n" + "\n".join(offenders)


def test_the_pointer_check_sees_the_docs_and_the_code() -> None:
    """The scan covers the README, the docs and the packages (it would not pass by seeing nothing)."""
    seen = {f.relative_to(ROOT).as_posix() for f in project_files()}
    assert {"README.md", "docs/index.md", "rules/core/combat.py", "table/session.py"} <= seen
    assert not any(s.startswith("tests/") for s in seen)
    assert OUTSIDE_POINTER.search("see ../shared/spec/rulesets/kiai.md") and OUTSIDE_POINTER.search("shared/spec")


@pytest.mark.parametrize("page", markdown_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(page: Path) -> None:
    """Every relative link of a page names an existing file, and its ``#anchor`` a heading there."""
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading '#{anchor}' in {dest.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_index_links_every_page() -> None:
    """``docs/index.md`` leads to every page under ``docs/``."""
    index = DOCS / "index.md"
    linked = {(index.parent / t.partition("#")[0]).resolve() for t in links(index) if t.partition("#")[0]}
    pages = {p.resolve() for p in DOCS.rglob("*.md") if p != index}
    missing = sorted(str(p.relative_to(ROOT)) for p in pages - linked)
    assert not missing, f"docs/index.md does not link {', '.join(missing)}"


@pytest.mark.parametrize("rid", SYSTEMS)
def test_every_cited_rule_id_is_explained(rid: str) -> None:
    """Each rule id the system's code cites appears on its rules page ([core] ones and the rest)."""
    page = DOCS / "rules" / f"{rid}.md"
    assert page.is_file(), f"rule system '{rid}' has no rules page {page.relative_to(ROOT)}"
    cited = cited_ids(rid)
    assert cited, f"found no {RULESETS[rid].info.prefix} rule ids in the code of '{rid}'"
    missing = sorted(cited - rule_ids(page.read_text(encoding="utf-8"), RULESETS[rid].info.prefix))
    assert not missing, f"{page.relative_to(ROOT)} does not explain {', '.join(missing)}"


@pytest.mark.skipif(not SPECS.is_dir(), reason="the specification folder is not next to this checkout")
@pytest.mark.parametrize("rid", SYSTEMS)
def test_every_rule_of_the_specification_is_explained(rid: str) -> None:
    """With the specification at hand: its every rule id, cited by the code or not, is on the rules page."""
    spec = SPECS / f"{rid}.md"
    if not spec.is_file():
        pytest.skip(f"no specification for '{rid}'")
    prefix = RULESETS[rid].info.prefix
    defined = set(re.findall(rf"^\s*(?:#+\s*|\*\*|[-|]\s*\*\*)\s*({prefix}-\d+(?:\.\d+)+[a-z]?)\b",
                             spec.read_text(encoding="utf-8"), re.MULTILINE))
    assert defined, f"found no rule definitions in {spec}"
    missing = sorted(defined - rule_ids((DOCS / "rules" / f"{rid}.md").read_text(encoding="utf-8"), prefix))
    assert not missing, f"docs/rules/{rid}.md does not explain {', '.join(missing)}"


def readme_agent_table() -> dict[str, set[str]]:
    """The README's table of agent parameters: each agent's name and the parameters its rows name.

    A row with a first cell starts an agent (several: `random`, `first`, `scripted`); rows with an
    empty first cell add parameters to it. Text in parentheses explains and is not read.
    """
    rows = re.findall(r"^\|(.*?)\|(.*?)\|.*\|$", (ROOT / "README.md").read_text(encoding="utf-8"), re.M)
    table: dict[str, set[str]] = {}
    agents: list[str] = []
    for first, second in rows:
        if first.strip():
            agents = re.findall(r"`([a-z_]+)`", re.sub(r"\([^)]*\)", "", first))
        for agent in agents:
            table.setdefault(agent, set()).update(re.findall(r"`([a-z_]+)`", re.sub(r"\([^)]*\)", "", second)))
    return table


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_readme_lists_every_agent_and_parameter(system: str) -> None:
    from trpg_arena.agents.spec import agent_infos

    table = readme_agent_table()
    for info in agent_infos(system):
        assert info.name in table, f"README's agent table lacks `{info.name}`"
        missing = set(info.params) - table[info.name]
        assert not missing, f"README's agent table lacks `{info.name}`'s parameters {sorted(missing)}: add their rows"


def test_the_readme_code_runs_as_written(tmp_path: Path) -> None:
    """The README's Python blocks, in order and in one namespace as a reader pastes them, run without an error.

    Its agents-and-sessions block asked an agent about the engine block's finished combat and confirmed a
    person's decision, both refused; it writes its session store in the working folder (here `tmp_path`).
    """
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 3
    script = tmp_path / "readme.py"
    script.write_text("\n".join(blocks), encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert (tmp_path / "table.db").exists()
