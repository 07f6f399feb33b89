"""Run the NPCs' turn of a trpg-arena session through its HTTP API: what a VTT module or a chat bot does.

The table plays the PCs itself; the engine proposes every NPC decision with its reasons, and this
client accepts each proposal (a bot could show it to the GM first) until a person must act again,
printing what happened. Standard library only.

    trpg-arena serve                                   # in another terminal
    python examples/npc_turn_client.py --encounter reincarnator/duel
    python examples/npc_turn_client.py --session 3f2a9c0d41b7 --token TOKEN --server http://192.0.2.7:8765

The session's NPC seat should be ``review:<agent>`` (the agent proposes, the client confirms); with a
plain agent seat the server plays the NPCs at once and this client only reports.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.request
from typing import Any


class Api:
    """A tiny JSON client for one trpg-arena server."""

    def __init__(self, server: str, token: str | None) -> None:
        self.server = server.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One request; a refusal exits with the server's one-line message."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.server + path, data=data, method=method)
        request.add_header("content-type", "application/json")
        if self.token:
            request.add_header("authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as e:
            detail = json.loads(e.read() or b"{}")
            sys.exit(f"{method} {path}: {e.code} {detail.get('message', e.reason)}")


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
        out = api.call("POST", f"/api/sessions/{sid}/confirm" if seat["kind"] == "review"
                       else f"/api/sessions/{sid}/run", {})
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
    parser.add_argument("--token", default=None, help="the token `trpg-arena serve` printed (beyond 127.0.0.1)")
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
    print(f"NPC turn done: {run_npc_turn(api, sid)} decisions")


if __name__ == "__main__":
    main()
