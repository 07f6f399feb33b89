"""Fixtures for the server tests: an application over a fresh session database, and a client for it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from trpg_arena.server import ServerConfig, create_app
from trpg_arena.server.config import LOOPBACK_NAMES


def make_client(db: Path, **config: object) -> TestClient:
    """A test client of a server on 127.0.0.1 with the session database `db`.

    The test client's WebSockets say ``Host: testserver``, so that name is trusted too.
    """
    config.setdefault("trusted_hosts", (*LOOPBACK_NAMES, "testserver"))
    app = create_app(ServerConfig(db=db, **config))  # type: ignore[arg-type]
    return TestClient(app, base_url="http://127.0.0.1")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "sessions.db"


@pytest.fixture
def client(db: Path) -> Iterator[TestClient]:
    with make_client(db) as c:
        yield c
