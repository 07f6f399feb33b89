"""Tool arguments checked as the HTTP API checks a request body: strictly, a refusal in one located line.

The SDK's own checking is lax where the API is strict: it drops arguments it does not know (a misspelt
``max_decision`` ran without its limit), coerces ``"1"`` or ``true`` into a revision, parses a text that
looks like JSON before checking it (an encounter's JSON text arrived as an object and was refused, the
name ``"null"`` became no name), and answers a failure with pydantic's multi-line report and no
structured part. So a tool takes its arguments as the client sent them (`AsSent`) and `Arguments`
checks them against the tool function's own signature, the one its input schema is built from: an
unknown name, a wrong type or a value out of range is a `ToolRefusal` of kind ``invalid_arguments``
naming the argument in the words ``server.errors`` gives a 422 (``changes.hp: a whole number is needed``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from trpg_arena.server.errors import plain_problems
from trpg_arena.server.mcp_server.table import ToolRefusal

STRICT = ConfigDict(extra="forbid", strict=True)  # as the API's request bodies (`server.models.Strict`)


class AsSent(FuncMetadata):
    """A tool's arguments handed to it as sent: no JSON parsing of text, no coercion; `Arguments` checks them."""

    def validate_arguments(self, arguments_to_validate: dict[str, Any]) -> dict[str, Any]:
        """The arguments unchanged (the tool checks them, see the module docstring)."""
        return dict(arguments_to_validate)


class Arguments:
    """The strict check of one tool's arguments, built from its function's signature."""

    def __init__(self, tool: str, fn: Callable[..., Any]) -> None:
        self.tool = tool
        params = inspect.signature(fn, eval_str=True).parameters
        self.names = list(params)
        fields: dict[str, Any] = {name: (p.annotation, ... if p.default is inspect.Parameter.empty else p.default)
                                  for name, p in params.items()}
        self.model: type[BaseModel] = create_model(f"{tool}_arguments", __config__=STRICT, **fields)

    def check(self, given: dict[str, Any]) -> dict[str, Any]:
        """The arguments as the function takes them; `ToolRefusal` (``invalid_arguments``) naming the first problem."""
        try:
            parsed = self.model.model_validate(given)
        except ValidationError as e:
            problems = plain_problems([self._unknown_argument(p) for p in e.errors(include_url=False)])
            first = problems[0]
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise ToolRefusal(f"{first['where']}: {first['message']}{more}", "invalid_arguments",
                              where=first["where"]) from None
        return {name: getattr(parsed, name) for name in self.names}

    def _unknown_argument(self, problem: Any) -> Any:
        """An argument the tool does not take, said with the ones it takes (a field inside one: as the API)."""
        if problem["type"] != "extra_forbidden" or len(problem["loc"]) != 1:
            return problem
        return {**problem, "type": "unknown_argument",
                "msg": f"no such argument ({self.tool} takes {', '.join(self.names) or 'none'})"}
