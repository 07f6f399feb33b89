"""The rules resources ship inside the package: each is its system's docs/rules/<id>.md, also from a built wheel."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import SYSTEMS

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "rules", "agents", "table", "envs", "experiments", "server")
LEFT_OUT = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")


@pytest.mark.parametrize("rid", SYSTEMS)
def test_the_packaged_reference_is_the_docs_page(rid: str) -> None:
    packaged = resources.files("trpg_arena.server.mcp_server") / "rules" / f"{rid}.md"
    page = ROOT / "docs" / "rules" / f"{rid}.md"
    assert packaged.read_text(encoding="utf-8") == page.read_text(encoding="utf-8"), (
        f"server/mcp_server/rules/{rid}.md differs from docs/rules/{rid}.md: "
        f"cp docs/rules/{rid}.md server/mcp_server/rules/{rid}.md")


def test_a_server_installed_from_the_wheel_serves_the_rules_from_the_package(tmp_path: Path) -> None:
    # the wheel is built from a fresh copy of the sources: nothing left in a build/ folder can stand in for them
    src, wheels, installed = tmp_path / "src", tmp_path / "wheels", tmp_path / "site"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=LEFT_OUT)
        else:
            shutil.copy(ROOT / name, src / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(wheels), str(src)], check=True, capture_output=True, cwd=tmp_path)
    with zipfile.ZipFile(next(wheels.glob("trpg_arena-*.whl"))) as z:
        z.extractall(installed)  # a pure-Python wheel installs by unpacking
    shutil.rmtree(src)  # and the server cannot read the copied sources instead
    env = {**os.environ, "PYTHONPATH": str(installed)}  # ahead of this checkout's editable install

    where = subprocess.run([sys.executable, "-c", "from trpg_arena.server.mcp_server import app; "
                            "print(app.RULES_DOCS)"], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert Path(where.stdout.strip()) == installed / "trpg_arena" / "server" / "mcp_server" / "rules", where.stderr

    async def read() -> None:
        params = StdioServerParameters(command=sys.executable, cwd=str(tmp_path), env=env,
                                       args=["-m", "trpg_arena.experiments.cli", "mcp", "--db",
                                             str(tmp_path / "sessions.db")])
        async with stdio_client(params) as (r, w), ClientSession(r, w) as session:
            await session.initialize()
            uris = {str(res.uri) for res in (await session.list_resources()).resources}
            assert uris >= {f"trpg-arena://rules/{rid}" for rid in SYSTEMS}
            for rid in SYSTEMS:
                text = getattr((await session.read_resource(f"trpg-arena://rules/{rid}")).contents[0], "text", None)
                assert text == (ROOT / "docs" / "rules" / f"{rid}.md").read_text(encoding="utf-8"), rid
            # the built-in encounters came with it too: a session starts from the installed package
            started = await session.call_tool("start_session", {"encounter": "moonlit/duel", "run": False})
            assert not started.is_error, started.content

    asyncio.run(read())
