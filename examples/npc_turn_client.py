"""Run the NPCs' turn of a trpg-arena session through its HTTP API: what a VTT module or a chat bot does.

The table plays the PCs itself; the engine proposes every NPC decision with its reasons, and this
client accepts each proposal (a bot could show it to the GM first) until a person must act again,
printing what happened. Standard library only.

    trpg-arena serve                                   # in another terminal
    python examples/npc_turn_client.py --encounter reincarnator/duel
    python examples/npc_turn_client.py --session 3f2a9c0d41b7 --token TOKEN --server http://192.0.2.7:8765

The session's NPC seat should be ``review:<agent>`` (the agent proposes, the client confirms); with a
plain agent seat the server plays the NPCs at once and this client only reports.

Every change it sends names the state it was decided on (``If-Match: "<revision>"``): if someone else
(the GM's page, the terminal) acted first, the server changes nothing and answers 409 with the state
now, and the client goes on from there. Each change also carries an ``Idempotency-Key``, so a retry
after a lost answer or a busy database (503) is answered as the first try and never acts twice.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

RETRIES = 3  # tries again after a lost answer or a busy database (503)


class Stale(Exception):
    """The session changed before this change arrived (409): nothing was done; `state` is the session now."""

    def __init__(self, state: dict[str, Any]) -> None:
        super().__init__("the session changed meanwhile")
        self.state = state


class Api:
    """A tiny JSON client for one trpg-arena server."""

    def __init__(self, server: str, token: str | None) -> None:
        self.server = server.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: dict[str, Any] | None = None, revision: int | None = None) -> Any:
        """One request; a refusal exits with the server's one-line message.

        A change (`revision`: the state it was decided on) raises `Stale` if the session moved on first,
        and is tried again with the same key after a lost answer or a 503.
        """
        data = None if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json"}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        if method != "GET":
            headers["idempotency-key"] = uuid.uuid4().hex  # one per change, the same on every retry of it
        if revision is not None:
            headers["if-match"] = f'"{revision}"'
        for attempt in range(RETRIES + 1):
            request = urllib.request.Request(self.server + path, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=120) as response:
                    return json.loads(response.read() or b"null")
            except urllib.error.HTTPError as e:
                detail = json.loads(e.read() or b"{}")
                if e.code == 409 and "state" in detail:
                    raise Stale(detail["state"]) from None
                if e.code != 503 or attempt == RETRIES:
                    sys.exit(f"{method} {path}: {e.code} {detail.get('message', e.reason)}")
                time.sleep(float(e.headers.get("retry-after") or 1))
            except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
                if attempt == RETRIES:
                    sys.exit(f"{method} {path}: no answer from {self.server} ({e})")
                time.sleep(1)  # the answer may be lost, not the change: the key makes the retry safe
        raise AssertionError("unreachable")


def run_npc_turn(api: Api, sid: str) -> int:
    """Confirm NPC proposals until a person must act or the combat ends; returns the decisions taken."""
    taken = 0
    state = api.call("GET", f"/api/sessions/{sid}")
    while not state["over"]:
        pending = state["pending"]
        decision, seat = pending["decision"], pending["seat"]
        if pending["dice"] is not None:
            print(f"the table rolls: {pending['dice']['text']} (enter it with POST /api/sessions/{sid}/dice)")
            break
        if seat["kind"] == "human":
            print(f"{decision['actor']} is played at the table: {decision['prompt']}")
            break
        proposal = pending["proposal"]
        print(f"{decision['actor']} proposes: {proposal['text']}")
        for reason in proposal["reasons"]:
            print(f"    because {reason}")
        try:
            out = api.call("POST", f"/api/sessions/{sid}/confirm" if seat["kind"] == "review"
                           else f"/api/sessions/{sid}/run", {}, revision=state["revision"])
        except Stale as e:  # the GM (or another client) acted first: look again at what is open now
            print("the session changed meanwhile: nothing was done; reading it again")
            state = e.state
            continue
        for event in out["events"]:
            if event["kind"] not in ("decision", "auto_decision"):
                print(f"  r{event['round']} {event['text']}")
        taken += len(out["decisions"])
        state = out["state"]
    if state["over"]:
        print(f"the combat is over: {state['result']} ({state['outcome']['termination']})")
    return taken


def main() -> None:
    """Command line: pick or start a session, then run its NPCs' turn."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="http://127.0.0.1:8765")
    parser.add_argument("--token", default=os.environ.get("TRPG_ARENA_TOKEN"),
                        help="the server's token (beyond 127.0.0.1; default $TRPG_ARENA_TOKEN: `ps` does not show it)")
    parser.add_argument("--session", default=None, help="a session id (default: start one)")
    parser.add_argument("--encounter", default="reincarnator/duel", help="built-in encounter of a new session")
    args = parser.parse_args()
    api = Api(args.server, args.token)
    sid = args.session
    if sid is None:
        made = api.call("POST", "/api/sessions", {"encounter": args.encounter, "pc": "human",
                                                  "npc": "review:scripted"})
        sid = made["state"]["id"]
        print(f"started session {sid} ({args.encounter})")
    taken = run_npc_turn(api, sid)
    if taken == 0:  # a PC (or the table's dice) comes first: say so rather than "0 decisions"
        print("NPC turn done: no NPC decision was open; run this again once the table has acted")
    else:
        print(f"NPC turn done: {taken} decision{'s' if taken != 1 else ''}")


if __name__ == "__main__":
    main()
