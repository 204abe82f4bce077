"""TinyElf's compatibility module for tools written for the seed's layout:
``from core.tools._base import get_credential`` works as the seed describes
(seed 002), resolving through TinyElf — the Settings credential of that name
(the agent profile's own first), the vault, the shared credentials file,
the environment."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from tinyelf_tool import ToolConfigError, get_credential, resolve_env_style_credential

__all__ = ["ToolConfigError", "ToolResult", "auto_cli_guide", "get_credential", "get_env_or_fail", "logger", "resolve_env_style_credential"]

logger = logging.getLogger("animaworks.tools")


@dataclass
class ToolResult:
    """A tool's outcome in the seed's shape (TinyElf returns it as JSON)."""

    success: bool
    data: Any = None
    text: str = ""
    error: str | None = None


def get_env_or_fail(key: str, tool_name: str) -> str:
    """Returns an environment-style credential or raises ToolConfigError."""
    value = resolve_env_style_credential(key)
    if not value:
        raise ToolConfigError(
            "Tool '%s' requires %s. Set it in the vault (Settings > Tools), the shared credentials file or the environment, "
            "and name it in the tool's CREDENTIALS." % (tool_name, key)
        )
    return value


def auto_cli_guide(tool_name: str, schemas: list[dict[str, Any]]) -> str:
    """A short Markdown guide to running the tool's actions from the command
    line (``tinyelf tool TOOL ACTION …``), made from its schemas."""
    lines = ["### %s" % tool_name, "```bash"]
    for schema in schemas or []:
        params = schema.get("input_schema") or schema.get("parameters") or {}
        props = params.get("properties") or {}
        required = list(params.get("required") or [])
        name = str(schema.get("name", ""))
        action = name[len(tool_name) + 1:] if name.startswith(tool_name + "_") else name
        parts = ["tinyelf tool %s %s" % (tool_name, action)]
        parts += ["<%s>" % p for p in required]
        for p, spec in props.items():
            if p in required:
                continue
            kind = (spec or {}).get("type", "string")
            flag = "--" + p.replace("_", "-")
            parts.append("[%s]" % flag if kind == "boolean" else "[%s <%s>]" % (flag, kind))
        lines.append(" ".join(parts))
    lines.append("```")
    return "\n".join(lines)

