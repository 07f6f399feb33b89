"""Agents named by data: ``NAME[:PRESET][:KEY=VALUE...]`` specs, the registry, presets and parameters.

``mcts:hard``, ``mcts:simulations=400``, ``scripted``, ``policy:runs/train/model.zip``: an `AgentSpec`
is parsed from such a string, checked against what the agent declares (presets, keyword parameters
of its constructor) and built by `make_agent` with the rule system and a seeded numpy `Generator`.
A wrong name, preset or parameter is an `UnknownAgentError` that lists what exists.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from trpg_arena.rules import RULESETS, TrpgArenaError


class UnknownAgentError(TrpgArenaError, ValueError):
    """An agent spec that names no registered agent, preset or parameter (the message lists what exists)."""


@dataclass(frozen=True)
class Param:
    """One keyword parameter an agent accepts: its type, default and a line of help."""

    name: str
    type: type
    default: Any
    help: str = ""

    def parse(self, text: Any, agent: str) -> Any:
        """A value of this parameter from spec text (or an already typed value)."""
        if not isinstance(text, str):
            return text
        try:
            if self.type is bool:
                if text.lower() not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                    raise ValueError(text)
                return text.lower() in ("true", "1", "yes", "on")
            return self.type(text)
        except ValueError:
            raise UnknownAgentError(f"agent '{agent}': parameter {self.name} takes {self.type.__name__}, "
                                    f"got '{text}'") from None


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

    def describe_params(self) -> str:
        """``simulations=60, depth=200`` (with the types)."""
        return ", ".join(f"{p.name}={p.default!r} ({p.type.__name__})" for p in self.params.values())


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
            elif preset is None and part.strip():
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
_discovered = False


def _params_of(cls: type, types: Mapping[str, type], helps: Mapping[str, str]) -> dict[str, Param]:
    out = {}
    for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        if p.name in ("ruleset", "rng", "seed") or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        default = None if p.default is inspect.Parameter.empty else p.default
        kind = types.get(p.name) or (type(default) if default is not None else str)
        out[p.name] = Param(p.name, kind, default, helps.get(p.name, ""))
    return out


def register_agent(name: str, ruleset: str | None = None, *, presets: Mapping[str, Mapping[str, Any]] | None = None,
                   positional: str | None = None, types: Mapping[str, type] | None = None,
                   helps: Mapping[str, str] | None = None) -> Callable[[type], type]:
    """Class decorator: register an agent under `name`, for every system (`ruleset` None) or for one.

    The class is built as ``cls(ruleset=..., rng=..., **params)``; its other keyword parameters (read
    from ``__init__``, typed by their defaults or `types`) are what a spec may set, and `presets`
    name sets of them (``{"easy": {"simulations": 20}}``).
    """

    def deco(cls: type) -> type:
        doc = (inspect.getdoc(cls) or "").split("\n", 1)[0]
        info = AgentInfo(name, cls, ruleset, _params_of(cls, types or {}, helps or {}), dict(presets or {}),
                         positional, doc)
        for preset, values in info.presets.items():
            unknown = set(values) - set(info.params)
            if unknown:
                raise TypeError(f"agent '{name}' preset '{preset}' sets unknown parameters {sorted(unknown)}")
        _REGISTRY[(name, ruleset)] = info
        return cls

    return deco


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    import trpg_arena.agents as pkg

    for mod in pkgutil.walk_packages(pkg.__path__, prefix="trpg_arena.agents."):
        importlib.import_module(mod.name)


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
    """The agent a spec names and the keyword parameters it is built with (preset first, then overrides)."""
    spec = AgentSpec.parse(spec)
    info = agent_info(spec.name, ruleset)
    params: dict[str, Any] = {}
    if spec.preset is not None:
        if spec.preset not in info.presets:
            if info.positional is not None:
                params[info.positional] = spec.preset
            else:
                known = ", ".join(info.presets) or "none"
                raise UnknownAgentError(f"agent '{spec.name}' has no preset '{spec.preset}' (presets: {known})")
        else:
            params.update(info.presets[spec.preset])
    for key, value in spec.params:
        if key not in info.params:
            known = info.describe_params() or "none"
            raise UnknownAgentError(f"agent '{spec.name}' has no parameter '{key}' (parameters: {known})")
        params[key] = value
    return info, {k: info.params[k].parse(v, spec.name) for k, v in params.items()}


def make_agent(spec: str | AgentSpec, ruleset: str, seed: int | None = None, *,
               rng: np.random.Generator | None = None) -> Any:
    """Build the agent a spec names for a rule system, with `rng` (or a generator seeded by `seed`)."""
    info, params = resolve(spec, ruleset)
    generator = rng if rng is not None else np.random.default_rng(seed)
    agent = info.cls(ruleset=ruleset, rng=generator, **params)
    agent.spec = str(AgentSpec.parse(spec))
    return agent
