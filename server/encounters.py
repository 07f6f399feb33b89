"""Encounters a request names or uploads: built-ins by name, YAML or JSON text, or a JSON object.

A request never names a file on the server: a built-in name is looked up in the rule system's own
folder (never as a path), and anything else is uploaded text or data. Uploads are validated with
the same model and give the same located messages as ``trpg-arena validate``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from trpg_arena.agents import agent_names
from trpg_arena.agents.spec import AgentInfo, AgentSpec, UnknownAgentError, agent_info, check_agent
from trpg_arena.rules import RULESETS, EncounterBase, EncounterError, builtin_encounters, load_encounter
from trpg_arena.rules.core.encounter import BUILTIN

MAX_NODES = 200_000  # values in an uploaded encounter once its YAML aliases are expanded (an alias bomb is refused)
MAX_DEPTH = 64  # lists and mappings inside each other: an encounter needs a handful, the parsers recurse on each


def builtin(name: str) -> EncounterBase:
    """A built-in encounter (``moonlit/duel``), read from its rule system's folder; `EncounterError` otherwise."""
    m = BUILTIN.match(name)
    if m is None or m.group(1) not in RULESETS:
        known = ", ".join(RULESETS)
        raise EncounterError("not a built-in encounter name like 'moonlit/duel'", source=name, path="encounter",
                             expected=f"<ruleset>/<name> with a ruleset of {known}")
    rid, stem = m.groups()
    path = RULESETS[rid].info.data_dir / "encounters" / f"{stem}.yaml"
    if not path.is_file():
        names = ", ".join(builtin_encounters(RULESETS[rid]))
        raise EncounterError(f"no built-in encounter '{name}' (built-in: {names})", source=name, path="encounter")
    return load_encounter(path, source=name)


def parse_text(text: str, source: str) -> Any:
    """YAML or JSON text as data; broken syntax is an `EncounterError` with the line, as ``validate`` reports it."""
    try:
        if text.lstrip().startswith("{"):
            return json.loads(text)
        return yaml.safe_load(text)
    except json.JSONDecodeError as e:
        raise EncounterError(f"broken JSON at line {e.lineno}, column {e.colno}: {e.msg}", source=source) from None
    except RecursionError:  # the JSON and YAML parsers recurse once per level
        raise EncounterError(f"nested more than {MAX_DEPTH} levels deep", source=source) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e)
        raise EncounterError(f"broken YAML{where}: {problem}", source=source) from None


def shape_problem(data: Any, max_nodes: int = MAX_NODES, max_depth: int = MAX_DEPTH) -> str | None:
    """Why parsed data is too big to handle (None if it is not): too many values, or nested too deep.

    Counted without recursion, so data nested a thousand levels deep is refused rather than crashing
    whatever walks it next; YAML aliases count once per use (an alias bomb is refused).
    """
    budget = max_nodes
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        budget -= 1
        if budget < 0:
            return f"more than {max_nodes} values once aliases are expanded"
        if isinstance(value, dict | list):
            if depth > max_depth:
                return f"nested more than {max_depth} levels deep"
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return None


def uploaded(text: str | None, data: Any, source: str) -> EncounterBase:
    """An encounter from uploaded text or a JSON object, validated (located `EncounterError` if wrong)."""
    parsed = parse_text(text, source) if text is not None else data
    if not isinstance(parsed, dict):  # never hand text to `load_encounter`: it would read it as a path
        raise EncounterError("an encounter must be a mapping of fields", source=source, path="<root>",
                             expected="a mapping with 'ruleset' and 'combatants'", actual=type(parsed).__name__)
    problem = shape_problem(parsed)
    if problem is not None:
        raise EncounterError(problem, source=source)
    return load_encounter(parsed, source=source)


class SeatNotAllowed(EncounterError):
    """A seat whose agent would read a file on the server: refused over HTTP as ``seat_not_allowed``."""


class UnknownSeatAgent(UnknownAgentError):
    """A seat or agent a request names that is no agent (preset, value) of the system; `where`: the field sent."""

    def __init__(self, message: str, where: str) -> None:
        super().__init__(message)
        self.where = where


def file_params(info: AgentInfo) -> list[str]:
    """The parameters of an agent that may name a file on the server: its free text ones.

    Derived from the parameters' kinds, not listed by hand: a text parameter without a fixed set of
    `choices` may be a path (a policy's ``path``, ``trained``'s and ``ppo``'s ``model``, ``mcts``'s ``value``),
    so an agent that gains one is covered without an edit here.
    """
    return [p.name for p in info.params.values() if p.type is str and (p.limit is None or not p.limit.choices)]


def own_words(info: AgentInfo, name: str) -> set[str]:
    """The values of free text parameter `name` that the agent reads as words, never as a file.

    Its default, the values its presets give it, and the words its help names in quotes (``mcts``'s
    ``value``: 'hand', 'learned', 'auto'); anything else may be a path.
    """
    param = info.params[name]
    words = {param.default, *(values[name] for values in info.presets.values() if name in values)}
    return {w for w in words if isinstance(w, str)} | set(re.findall(r"'([A-Za-z0-9_-]+)'", param.help))


def needs_file(info: AgentInfo) -> bool:
    """Whether the agent cannot play without a file on the server (``policy:PATH``)."""
    return info.positional is not None and info.positional in file_params(info)


def check_seat(text: str, ruleset: str, where: str = "seat") -> str:
    """A seat spec from a request's field `where`: refused if its agent would read a file on the server, then checked.

    A refusal names `where` as the request sent it (``npc``, ``seats.A``, ``agent``).

    The file check comes first, since checking the spec (or building the agent) would read the file: the
    answer is the same whether or not the file exists, so a request learns nothing about the server's files.
    """
    spec = refuse_files(text, ruleset, where)
    if spec is not None:
        try:
            check_agent(spec, ruleset)  # every value within what the agent declares, before anything is stored
        except UnknownAgentError as e:
            raise UnknownSeatAgent(str(e), where) from None
    return text


def refuse_files(text: str, ruleset: str, where: str = "seat") -> AgentSpec | None:
    """The agent spec of a seat (None for a person's), refused if it names a file (a model, a value file)."""
    body = text.strip().removesuffix("+dice")
    body = body.removeprefix("review:") if body.startswith("review:") else body
    if body in ("human", "review", ""):
        return None
    try:
        spec = AgentSpec.parse(body)
    except UnknownAgentError as e:  # no spec at all ('mcts::hard')
        raise UnknownSeatAgent(str(e), where) from None
    try:
        info = agent_info(spec.name, ruleset)
    except UnknownAgentError:  # the agents a request may name, not every registered one ('policy' is refused here)
        raise UnknownSeatAgent(f"no agent '{spec.name}' for {ruleset} (known: {', '.join(safe_agents(ruleset))})",
                               where) from None
    if needs_file(info):
        raise SeatNotAllowed(f"agent '{spec.name}' loads files on the server and cannot be seated over HTTP",
                             path=where, expected="one of " + ", ".join(safe_agents(ruleset)), actual=text)
    files = file_params(info)
    for key, value in spec.params:
        words = own_words(info, key) if key in files else set()
        if key in files and value not in words:
            named = sorted(w for w in words if w)
            also = f"; over HTTP it takes {', '.join(named)}" if named else ""
            raise SeatNotAllowed(f"agent '{spec.name}': {key}= names a file on the server and cannot be set over "
                                 f"HTTP{also}", path=where, expected=f"'{spec.name}' without {key}=", actual=text)
    return spec


def check_controller_seats(enc: EncounterBase) -> None:
    """The seats an uploaded encounter's ``controllers:`` section gives, each checked as a request's seat.

    Refused (`check_seat`), located at ``controllers.<key>``, if one names a file, no agent a request may seat
    (``policy`` is not one), or a value its agent does not allow.
    """
    for key, text in (enc.controllers or {}).items():
        check_seat(text, enc.ruleset, where=f"controllers.{key}")


def safe_agents(ruleset: str) -> list[str]:
    """Agents a request may seat: every registered one that needs no file on the server."""
    return [name for name in agent_names(ruleset) if not needs_file(agent_info(name, ruleset))]


def catalogue() -> list[dict[str, Any]]:
    """Every rule system with its board, dice, built-in encounters and the agents a request may seat."""
    out = []
    for rid in RULESETS:
        info = RULESETS[rid].info
        out.append({"id": rid, "title": info.title, "board": info.board, "dice": info.dice,
                    "encounters": builtin_encounters(RULESETS[rid]), "agents": safe_agents(rid)})
    return out
