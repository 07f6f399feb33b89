"""Agents named by data: ``NAME[:PRESET][:KEY=VALUE...]`` specs, the registry, presets and parameters.

``mcts:hard``, ``mcts:simulations=400``, ``scripted``, ``policy:runs/train/model.zip``: an `AgentSpec`
is parsed from such a string, checked against what the agent declares (presets, keyword parameters
of its constructor with their types and `Limit`s) and built by `make_agent` with the rule system and a
seeded numpy `Generator`. A wrong name, preset, parameter or value is an `UnknownAgentError` that lists
what exists and what each parameter allows; `check_agent` runs that check without building the agent.
"""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from trpg_arena.rules import RULESETS, TrpgArenaError


class UnknownAgentError(TrpgArenaError, ValueError):
    """An agent spec that names no registered agent, preset or parameter (the message lists what exists)."""


@dataclass(frozen=True)
class Limit:
    """The values a parameter allows: a range (`low`..`high`, `above`: strictly above `low`) or `choices`."""

    low: float | None = None
    high: float | None = None
    above: bool = False
    choices: tuple[str, ...] = ()

    def allows(self, value: Any) -> bool:
        """Whether `value` (already of the parameter's type) is allowed."""
        if self.choices:
            return value in self.choices
        if self.low is not None and (value <= self.low if self.above else value < self.low):
            return False
        return self.high is None or value <= self.high

    def describe(self) -> str:
        """``1..100000``, ``> 0 and <= 100``, ``one of scripted, random, first``."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.low is not None and self.high is not None and not self.above:
            return f"{self.low:g}..{self.high:g}"
        parts = ([f"{'>' if self.above else '>='} {self.low:g}"] if self.low is not None else []) + (
            [f"<= {self.high:g}"] if self.high is not None else [])
        return " and ".join(parts)


_BOOL_WORDS = {"true": True, "1": True, "yes": True, "on": True, "false": False, "0": False, "no": False,
               "off": False}


@dataclass(frozen=True)
class Param:
    """One keyword parameter an agent accepts: its type, default, the values it allows and a line of help."""

    name: str
    type: type
    default: Any
    help: str = ""
    limit: Limit | None = None

    def parse(self, value: Any) -> Any:
        """The parameter's value from spec text (or an already typed value); `ValueError` says what is allowed."""
        typed = self._typed(value)
        if isinstance(typed, float) and not math.isfinite(typed):
            raise ValueError(f"{self.name} must be a finite number, got {value!r}")
        if self.limit is not None and typed != self.default and not self.limit.allows(typed):
            raise ValueError(f"{self.name} must be {self.limit.describe()}, got {value!r}")
        return typed

    def _typed(self, value: Any) -> Any:
        kind = self.type
        wrong = ValueError(f"{self.name} takes {kind.__name__}, got {value!r}")
        if isinstance(value, str) and kind is not str:
            text = value.strip()
            if kind is bool:
                if text.lower() not in _BOOL_WORDS:
                    raise wrong
                return _BOOL_WORDS[text.lower()]
            try:
                return kind(text)
            except (ValueError, OverflowError):
                raise wrong from None
        if kind is bool and not isinstance(value, bool):
            raise wrong
        if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise wrong
        if kind is float:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise wrong
            return float(value)
        if kind is str and not isinstance(value, str):
            raise wrong
        return value

    def describe(self) -> str:
        """``simulations=200 (int, 1..100000)``."""
        allowed = f", {self.limit.describe()}" if self.limit is not None else ""
        return f"{self.name}={self.default!r} ({self.type.__name__}{allowed})"


@dataclass(frozen=True)
class AgentInfo:
    """What the registry knows of one agent: how to build it, its parameters and presets."""

    name: str
    cls: type
    ruleset: str | None  # None: usable with every rule system
    params: Mapping[str, Param]
    presets: Mapping[str, Mapping[str, Any]]
    positional: str | None = None  # the parameter a bare spec part fills (``policy:PATH`` -> path)
    summary: str = ""
    # the preset a spec that names none is built with (``trained`` is ``trained:hard``); None: the bare defaults
    default_preset: str | None = None

    def describe_params(self) -> str:
        """``simulations=200 (int, 1..100000), depth=8 (int, 0..1000)`` (types and allowed values)."""
        return ", ".join(p.describe() for p in self.params.values())


@dataclass(frozen=True)
class AgentSpec:
    """An agent named by data: a registered name, an optional preset and parameter overrides.

    Frozen and hashable; ``str(spec)`` is the canonical spec string, and ``AgentSpec.parse(str(spec)) == spec``.
    """

    name: str
    preset: str | None = None
    params: tuple[tuple[str, Any], ...] = field(default_factory=tuple)

    @classmethod
    def parse(cls, text: str | AgentSpec) -> AgentSpec:
        """Parse ``NAME[:PRESET][:KEY=VALUE...]``; values stay text until the agent's types are known."""
        if isinstance(text, AgentSpec):
            return text
        if not isinstance(text, str) or not text.strip():
            raise UnknownAgentError(f"an agent spec must be a non-empty string like 'scripted' or 'mcts:hard', "
                                    f"got {text!r}")
        name, *parts = text.strip().split(":")
        if name == "policy" and parts and "=" not in parts[0]:
            # a model path may itself contain ':' (or start with a Windows drive); it takes the rest
            return cls("policy", None, (("path", ":".join(parts)),))
        preset = None
        params: dict[str, Any] = {}
        for part in parts:
            key, sep, value = part.partition("=")
            if sep:
                if not key.strip():
                    raise UnknownAgentError(f"agent spec '{text}': '{part}' needs a parameter name before '='")
                params[key.strip()] = value.strip()
            elif not part.strip():  # "random:" or "mcts::hard": an empty part names nothing
                raise UnknownAgentError(f"agent spec '{text}': an empty part between or after ':' (write NAME, "
                                        "NAME:PRESET or NAME:KEY=VALUE)")
            elif preset is None:
                preset = part.strip()
            else:
                raise UnknownAgentError(f"agent spec '{text}': '{part}' is a second preset; "
                                        "write parameters as KEY=VALUE")
        return cls(name.strip(), preset, tuple(sorted(params.items())))

    def with_params(self, **params: Any) -> AgentSpec:
        """The same spec with some parameters set."""
        merged = dict(self.params)
        merged.update(params)
        return AgentSpec(self.name, self.preset, tuple(sorted(merged.items())))

    def __str__(self) -> str:
        if self.name == "policy" and self.preset is None and [k for k, _ in self.params] == ["path"]:
            return f"policy:{self.params[0][1]}"
        parts = [self.name] + ([self.preset] if self.preset else []) + [f"{k}={v}" for k, v in self.params]
        return ":".join(parts)


_REGISTRY: dict[tuple[str, str | None], AgentInfo] = {}
# Discovery runs once, under a lock, and counts as done only when every agent module is imported: a
# thread asking meanwhile waits instead of seeing half the agents (a server's first requests come together).
_discovery_lock = threading.RLock()
_discovered = False
_discovering = False  # only ever seen true by the importing thread itself (the others wait on the lock)


def _params_of(cls: type, types: Mapping[str, type], helps: Mapping[str, str],
               limits: Mapping[str, Limit]) -> dict[str, Param]:
    out = {}
    for p in inspect.signature(cls).parameters.values():  # the constructor's, less self
        if p.name in ("ruleset", "rng", "seed") or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        default = None if p.default is inspect.Parameter.empty else p.default
        kind = types.get(p.name) or (type(default) if default is not None else str)
        out[p.name] = Param(p.name, kind, default, helps.get(p.name, ""), limits.get(p.name))
    return out


def register_agent(name: str, ruleset: str | None = None, *, presets: Mapping[str, Mapping[str, Any]] | None = None,
                   positional: str | None = None, types: Mapping[str, type] | None = None,
                   helps: Mapping[str, str] | None = None, limits: Mapping[str, Limit] | None = None,
                   default_preset: str | None = None) -> Callable[[type], type]:
    """Class decorator: register an agent under `name`, for every system (`ruleset` None) or for one.

    The class is built as ``cls(ruleset=..., rng=..., **params)``; its other keyword parameters (read
    from ``__init__``, typed by their defaults or `types`) are what a spec may set, and `presets`
    name sets of them (``{"easy": {"simulations": 20}}``). Every number parameter declares the values
    it allows in `limits` (a spec outside them is refused before anything is built); so may text ones
    (``Limit(choices=...)``). A spec that names no preset is built with `default_preset` where one is
    declared (its overrides on top), else from the constructor's defaults alone.
    """

    def deco(cls: type) -> type:
        doc = (inspect.getdoc(cls) or "").split("\n", 1)[0]
        info = AgentInfo(name, cls, ruleset, _params_of(cls, types or {}, helps or {}, limits or {}),
                         dict(presets or {}), positional, doc, default_preset)
        if default_preset is not None and default_preset not in info.presets:
            raise TypeError(f"agent '{name}' declares default preset '{default_preset}', which it does not have")
        unbounded = [p.name for p in info.params.values() if p.type in (int, float) and p.limit is None]
        if unbounded:
            raise TypeError(f"agent '{name}' declares no limits for its number parameters {unbounded}")
        for preset, values in info.presets.items():
            unknown = set(values) - set(info.params)
            if unknown:
                raise TypeError(f"agent '{name}' preset '{preset}' sets unknown parameters {sorted(unknown)}")
            for key, value in values.items():
                info.params[key].parse(value)  # a preset outside its own limits is a bug in the agent
        _REGISTRY[(name, ruleset)] = info
        return cls

    return deco


def _discover() -> None:
    global _discovered, _discovering
    if _discovered:
        return
    with _discovery_lock:
        if _discovered or _discovering:
            return
        _discovering = True
        try:
            import trpg_arena.agents as pkg

            for mod in pkgutil.walk_packages(pkg.__path__, prefix="trpg_arena.agents."):
                importlib.import_module(mod.name)
            from trpg_arena.agents.plugins import register_system_agents

            register_system_agents()  # what each rule system brings: its scripted agent, its search presets
            _discovered = True
        finally:
            _discovering = False


def agent_infos(ruleset: str) -> list[AgentInfo]:
    """Every agent usable with a rule system (its own ones over the generic ones of the same name), by name."""
    _discover()
    found: dict[str, AgentInfo] = {}
    for (name, rid), info in _REGISTRY.items():
        if rid is None and name not in found:
            found[name] = info
    for (name, rid), info in _REGISTRY.items():
        if rid == ruleset:
            found[name] = info
    return [found[n] for n in sorted(found)]


def agent_names(ruleset: str) -> list[str]:
    """Agent names usable with this rule system."""
    return [i.name for i in agent_infos(ruleset)]


def agent_info(name: str, ruleset: str) -> AgentInfo:
    """The registered agent `name` for `ruleset`; `UnknownAgentError` lists the known ones otherwise."""
    if ruleset not in RULESETS:
        raise UnknownAgentError(f"unknown rule system '{ruleset}' (known: {', '.join(RULESETS)})")
    _discover()
    info = _REGISTRY.get((name, ruleset)) or _REGISTRY.get((name, None))
    if info is None:
        raise UnknownAgentError(f"no agent '{name}' for {ruleset} (known: {', '.join(agent_names(ruleset))})")
    return info


def resolve(spec: str | AgentSpec, ruleset: str) -> tuple[AgentInfo, dict[str, Any]]:
    """The agent a spec names and the keyword parameters it is built with (preset first, then overrides).

    A spec without a preset takes the agent's declared default preset, if it has one.
    """
    spec = AgentSpec.parse(spec)
    info = agent_info(spec.name, ruleset)
    params: dict[str, Any] = {}
    preset = spec.preset if spec.preset is not None else info.default_preset
    if preset is not None:
        if preset not in info.presets:
            if info.positional is not None:
                params[info.positional] = preset
            else:
                known = ", ".join(info.presets) or "none"
                raise UnknownAgentError(f"agent '{spec.name}' has no preset '{preset}' (presets: {known})")
        else:
            params.update(info.presets[preset])
    known = info.describe_params() or "none"
    for key, value in spec.params:
        if key not in info.params:
            raise UnknownAgentError(f"agent '{spec.name}' has no parameter '{key}' (parameters: {known})")
        params[key] = value
    typed = {}
    for key, value in params.items():
        try:
            typed[key] = info.params[key].parse(value)
        except ValueError as e:
            raise UnknownAgentError(f"agent '{spec.name}': {e} (parameters: {known})") from None
    return info, typed


def check_agent(spec: str | AgentSpec, ruleset: str) -> str:
    """The canonical spec string, once the spec is known valid for `ruleset` (name, preset, every value).

    Every place that takes a spec from a person (command lines, seats, requests, series files) checks it
    here before it stores or starts anything; `UnknownAgentError` lists what is allowed otherwise, or says
    why the agent would refuse a value (``ppo:model=FILE`` with a file that is no policy of the system).
    """
    info, params = resolve(spec, ruleset)
    check = getattr(info.cls, "check_params", None)  # agents kept with a rule system need not define it
    if check is not None:
        try:
            check(ruleset, params)
        except TrpgArenaError as e:  # a model file that does not load is a bad spec like any other
            raise UnknownAgentError(f"agent '{info.name}': {e}") from None
    return str(AgentSpec.parse(spec))


def make_agent(spec: str | AgentSpec, ruleset: str, seed: int | None = None, *,
               rng: np.random.Generator | None = None) -> Any:
    """Build the agent a spec names for a rule system, with `rng` (or a generator seeded by `seed`)."""
    info, params = resolve(spec, ruleset)
    generator = rng if rng is not None else np.random.default_rng(seed)
    agent = info.cls(ruleset=ruleset, rng=generator, **params)
    agent.spec = str(AgentSpec.parse(spec))
    return agent
