"""What a stale baseline says differs reads right: long values were cut with no mark (an open quote), and a
baseline of another rule system also listed an "encounter" change whose two sides were the same."""

from __future__ import annotations

import dataclasses

from trpg_arena.experiments.series import SeriesSpec
from trpg_arena.experiments.series.baseline import differences
from trpg_arena.rules import load_encounter


def test_a_long_changed_value_is_cut_with_a_mark() -> None:
    base = SeriesSpec.build("moonlit/duel", ["scripted", "random"], 4)
    data = load_encounter("moonlit/duel").model_dump(mode="json")
    data["description"] = "changed text"
    new = SeriesSpec.build(load_encounter(data, source="moonlit/duel"), ["scripted", "random"], 4,
                           name=base.name)
    (phrase,) = [p for kind, p in differences(base, new) if kind == "content"]
    said = phrase.split("description ")[1]
    before, after = said.split(" -> ")
    assert before.endswith("...") and len(before) == 30, said
    assert after.startswith('"changed text"'), said


def test_another_rule_system_alone_is_said_once() -> None:
    base = SeriesSpec.build("kiai/duel", ["scripted", "random"], 4)
    other = dataclasses.replace(base, ruleset="moonlit")
    said = differences(other, base)
    assert said == [("env_version", "rule system (moonlit -> kiai)")], said
