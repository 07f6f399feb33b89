"""GM edits over MCP through the SDK client: the editable fields, an edit as the GM's decision, tool errors."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.mcp.client import stdio_caller
from tests.server.conftest import make_client


def test_edit_combatant_sets_hp_refuses_what_the_rules_do_not_allow_and_undo_takes_it_back(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"

    async def go() -> None:
        async with stdio_caller(db) as c:
            state = (await c.call("start_session", encounter="moonlit/skirmish", seed=2, pc="human",
                                  npc="scripted"))["state"]
            sid, rev = state["id"], state["revision"]
            fields = await c.call("get_editable", session=sid)
            ghoul = next(r for r in fields["combatants"] if r["id"] == "ghoul_1")
            hp = next(f for f in ghoul["fields"] if f["name"] == "hp")
            assert (hp["value"], hp["low"], hp["high"]) == (26, 0, 26)
            too_much = await c.refused("edit_combatant", session=sid, revision=rev, combatant="ghoul_1",
                                       changes={"hp": 27})
            assert too_much.doc["error"] == "invalid_edit" and too_much.text.startswith("changes.hp: HP 27")
            assert "\n" not in too_much.text
            nobody = await c.refused("edit_combatant", session=sid, revision=rev, combatant="ghoul_9",
                                     changes={"hp": 3})
            assert nobody.text.startswith("combatant: no combatant 'ghoul_9'")
            stale = await c.refused("edit_combatant", session=sid, revision=rev + 5, combatant="ghoul_1",
                                    changes={"hp": 12})
            assert stale.doc["error"] == "stale_revision" and stale.doc["state"]["revision"] == rev
            edited = await c.call("edit_combatant", session=sid, revision=rev, combatant="ghoul_1",
                                  changes={"hp": 12, "bind": True})
            assert [d["text"] for d in edited["decisions"]] == ["GM: ghoul_1 HP 26 -> 12, bind no -> yes"]
            assert edited["state"]["revision"] > rev
            ghoul = next(x for x in edited["state"]["combatants"] if x["id"] == "ghoul_1")
            assert ghoul["hp"] == 12 and "bind" in ghoul["conditions"]
            stats = await c.call("get_statistics", session=sid)
            assert stats["edits"] == 1
            undone = (await c.call("undo", session=sid, revision=edited["state"]["revision"]))["state"]
            assert next(x for x in undone["combatants"] if x["id"] == "ghoul_1")["hp"] == 26
            assert undone["decisions"] == state["decisions"]
            removed = await c.call("edit_combatant", session=sid, revision=undone["revision"], combatant="ghoul_2",
                                   remove=True)
            both = await c.refused("edit_combatant", session=sid, revision=removed["state"]["revision"],
                                   combatant="ghoul_3", remove=True, add={"like": "ghoul_1"})
            assert both.doc["error"] == "invalid_arguments"
            added = await c.call("edit_combatant", session=sid, revision=removed["state"]["revision"],
                                 combatant="ghoul_3", add={"like": "ghoul_1", "zone": "B_rear"})
            assert added["decisions"][0]["text"].startswith("GM: adds ghoul_3 (B) like ghoul_1")
            removed = added
        with make_client(db) as http:  # the HTTP API sees the MCP's edit in the shared store
            records = http.get(f"/api/sessions/{sid}/records").json()["records"]
            assert [r["text"] for r in records[-2:]][0] == "GM: ghoul_2 is taken out (fled)"
            assert http.get(f"/api/sessions/{sid}").json()["revision"] == removed["state"]["revision"]

    asyncio.run(go())
