"""How a server is set up: where it listens, its session database, who may call it, and its limits."""

from __future__ import annotations

import ipaddress
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trpg_arena.table.dbpath import default_db

DEFAULT_PORT = 8765
DEFAULT_MAX_BODY = 2 * 1024 * 1024  # an encounter file or a play log; larger bodies are refused with 413
DEFAULT_RUN_LIMIT = 400  # agent decisions one request may take before handing back (the client asks again)
# seconds of agent work one request may take (the slowest preset, mcts:deadly, thinks 6 s a decision): a
# search answers its best so far, a run of agent decisions hands back, and no request holds a session longer
DEFAULT_AGENT_SECONDS = 8.0
TOKEN_ENV = "TRPG_ARENA_TOKEN"  # where `serve` reads a token from when none is given (kept out of `ps`)
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def is_loopback(host: str) -> bool:
    """Whether `host` only accepts connections from this machine (``127.0.0.0/8``, ``::1``, ``localhost``)."""
    name = host.strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ServerConfig:
    """Everything `create_app` needs; `for_host` fills in the token rule for a listening address.

    `token`: when set, every request must carry it (``Authorization: Bearer``, a ``token`` query
    parameter, or the cookie the page gets); a server listening beyond loopback always has one.
    `allow_origins`: the only web origins (besides the server's own) whose pages may call it.
    `trusted_hosts`: the ``Host`` headers accepted (loopback names on a loopback server, against DNS rebinding);
    empty means any. `agent_seconds`: the agent work one request may do (see `server.work`).
    """

    db: Path = field(default_factory=default_db)  # the terminal autopilot's store: both see the same sessions
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    token: str | None = None
    allow_origins: tuple[str, ...] = ()
    trusted_hosts: tuple[str, ...] = LOOPBACK_NAMES
    max_body: int = DEFAULT_MAX_BODY
    run_limit: int = DEFAULT_RUN_LIMIT
    agent_seconds: float = DEFAULT_AGENT_SECONDS
    token_generated: bool = field(default=False, compare=False)

    @classmethod
    def for_host(cls, host: str = "127.0.0.1", *, token: str | None = None, **kwargs: Any) -> ServerConfig:
        """A config for listening on `host`: beyond loopback a token is required, generated if not given.

        An empty token is a `ValueError`: it would let in every request that presents an empty one.
        """
        if token is not None and not token.strip():
            raise ValueError("the token is empty: give a token, or none (beyond loopback one is then generated)")
        generated = False
        if token is None and not is_loopback(host):
            token, generated = secrets.token_urlsafe(24), True
        trusted = LOOPBACK_NAMES if is_loopback(host) else ()
        kwargs.setdefault("trusted_hosts", trusted)
        return cls(host=host, token=token, token_generated=generated, **kwargs)

    def base_url(self) -> str:
        """The server's address as this machine reaches it (a wildcard address is reached on 127.0.0.1)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        if host in ("0.0.0.0", "[::]"):
            host = "127.0.0.1"
        return f"http://{host}:{self.port}"

    def page_url(self) -> str:
        """The address to open in a browser (with the token, when there is one)."""
        return self.base_url() + (f"/?token={self.token}" if self.token else "/")


def read_token(given: str | None, file: Path | None) -> str | None:
    """The token from ``--token``, else the first line of ``--token-file``, else ``$TRPG_ARENA_TOKEN`` (or None).

    A file or the environment keeps the token out of the process list (``ps`` shows command lines).
    A file that cannot be read, or holds no token, is a `ValueError` naming it; so is an empty ``--token``.
    """
    if given is not None and file is not None:
        raise ValueError("give the token once: --token or --token-file, not both")
    if file is not None:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ValueError(f"--token-file {file}: cannot be read ({getattr(e, 'strerror', None) or e})") from None
        lines = text.strip().splitlines()
        if not lines or not lines[0].strip():
            raise ValueError(f"--token-file {file}: the file is empty (write the token on its first line)")
        return lines[0].strip()
    if given is not None:
        if not given.strip():  # `--token ""` (an unset shell variable, say) must not start a server anyone may use
            raise ValueError("--token is empty: give a token, or leave --token out (beyond loopback one is then "
                             "generated and printed)")
        return given
    return os.environ.get(TOKEN_ENV) or None
