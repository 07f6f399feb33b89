"""The table: a combat played by seats (people or agents), stored, undone, reported.

It sits between the agents and the three things that put a combat in front of someone: the envs (a
learner's opponents play through `Session.attach`), the server (HTTP, MCP, the page) and the
experiments (the terminal table, series, reports). It imports the rules and the agents, never the
other way round (`tests/test_layers.py` checks it).

- `session`: the one loop that decides who acts, with its pending decision and its undo;
- `seats`: who sits where (a person, an agent, an agent under review);
- `store`, `store_file`, `dbpath`: sessions kept in SQLite and where that file lives;
- `choices`: the one JSON form of a pending decision (what the page, the API and MCP read);
- `menu`: a person's choice in steps (verb, then target, then options), and `odds`: the chances shown
  with a person's attacks, the numbers an NPC's proposal cites;
- `render`: the battlefield as a text map or a picture (the terminal, MCP, the envs' ``render``);
- `edits`: the GM's changes to a running combat;
- `stats`, `transcript`: the report and the Markdown log of a finished combat.
"""
