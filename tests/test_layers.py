"""The top-level folders import each other without a cycle, each only the layers below it (every import counts,
lazy ones included).

A cycle between folders is what stops a layer from being read, tested or replaced on its own: it was
`envs.gym_env -> agents.session` against `agents.policy -> envs.codec` until the codec moved below both and
the session moved out of `agents` into its own layer, `table`.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("rules", "agents", "table", "envs", "experiments", "server")

#: The layers from the bottom: a folder may import the folders of the layers below its own, none of its own layer
#: or above. The table (sessions, seats, the store, what a table shows and reports) seats agents; the envs (a
#: learner against a table's opponents) and the server (tables over HTTP and MCP) both stand on it, apart; the
#: experiments' command line starts all of them.
LAYERS = (("rules",), ("agents",), ("table",), ("envs", "server"), ("experiments",))

Edges = dict[str, dict[str, list[str]]]  # folder -> folder it imports -> "file:line" of each such import


def imported_modules(tree: ast.AST) -> list[tuple[str, int]]:
    """Every absolute module a file imports (at the top, inside functions or under TYPE_CHECKING), with its line."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, node.lineno))
    return found


def folder_edges(root: Path = ROOT) -> Edges:
    """Which top-level folder imports which other, and where (relative imports stay inside their folder)."""
    edges: Edges = defaultdict(lambda: defaultdict(list))
    for top in TOPS:
        for path in sorted((root / top).rglob("*.py")):
            for module, line in imported_modules(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                parts = module.split(".")
                if len(parts) >= 2 and parts[0] == "trpg_arena" and parts[1] in TOPS and parts[1] != top:
                    edges[top][parts[1]].append(f"{path.relative_to(root)}:{line}")
    return edges


def cycles(edges: Edges) -> list[list[str]]:
    """The folder cycles as paths that start and end at the same folder (one per folder that lies on a cycle)."""
    found = []
    for start in sorted(edges):
        # breadth-first from start's successors back to start gives one shortest cycle through it
        paths: list[list[str]] = [[start, nxt] for nxt in sorted(edges[start])]
        seen: set[str] = set()
        while paths:
            path = paths.pop(0)
            if path[-1] == start:
                found.append(path)
                break
            if path[-1] in seen:
                continue
            seen.add(path[-1])
            paths += [[*path, nxt] for nxt in sorted(edges.get(path[-1], {}))]
    return found


def describe(cycle: list[str], edges: Edges) -> str:
    """One cycle with the first import that makes each of its arrows."""
    return " -> ".join(f"{a} ({edges[a][b][0]})" for a, b in zip(cycle, cycle[1:])) + f" -> {cycle[-1]}"


def test_no_import_cycle_between_top_level_folders() -> None:
    edges = folder_edges()
    assert edges["envs"]["rules"], "the walk finds the imports it checks"
    assert not cycles(edges), "import cycles between folders:\n" + "\n".join(describe(c, edges) for c in cycles(edges))


def upward_imports(edges: Edges) -> list[str]:
    """Each import of a folder of the same layer or one above, as "folder -> folder (file:line)"."""
    rank = {top: i for i, layer in enumerate(LAYERS) for top in layer}
    return [f"{low} -> {high} ({where[0]})" for low, targets in sorted(edges.items())
            for high, where in sorted(targets.items()) if rank[high] >= rank[low]]


def test_each_folder_imports_only_the_layers_below_it() -> None:
    assert sorted(top for layer in LAYERS for top in layer) == sorted(TOPS)
    edges = folder_edges()
    assert edges["table"]["agents"] and edges["server"]["table"] and edges["envs"]["table"], "the walk sees the table"
    assert not upward_imports(edges), "imports of the same layer or one above:\n" + "\n".join(upward_imports(edges))


def test_the_walk_reports_a_cycle_it_is_given(tmp_path: Path) -> None:
    for top in TOPS:
        (tmp_path / top).mkdir()
    (tmp_path / "envs" / "env.py").write_text("from trpg_arena.agents.session import Session\n")
    (tmp_path / "agents" / "policy.py").write_text("def codec():\n    from trpg_arena.envs.codec import Codec\n")
    (tmp_path / "rules" / "core.py").write_text("from .other import x\nimport numpy\n")
    edges = folder_edges(tmp_path)
    assert cycles(edges) == [["agents", "envs", "agents"], ["envs", "agents", "envs"]]
    assert describe(cycles(edges)[0], edges) == "agents (agents/policy.py:2) -> envs (envs/env.py:1) -> agents"
    assert upward_imports(edges) == ["agents -> envs (agents/policy.py:2)"]
