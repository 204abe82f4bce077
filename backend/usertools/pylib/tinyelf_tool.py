"""TinyElf's helpers for user tools (seed 002).

TinyElf puts this module (and the compatibility package core.tools._base,
for tools written for the seed's layout) on the path of every Python tool
it runs. It is a copy in TinyElf's cache folder: editing it has no lasting
effect.

    from tinyelf_tool import get_credential
    key = get_credential("weather", "weather", env_var="WEATHER_API_KEY")

get_credential(credential_name, tool_name, key_name="api_key", env_var=None)
resolves in the seed's order: the Settings credential of that name (the
agent profile's own first), the vault entry (by env_var, then by the
name), the shared credentials file, the environment. TinyElf resolves what
a tool may ask for before the call — every credential its CREDENTIALS or
profile declares, and every get_credential(...) call whose arguments are
written out in its code — and passes only those in.
"""
from __future__ import annotations

import json
import os
import re

__all__ = ["ToolConfigError", "get_credential", "resolve_env_style_credential", "anima_dir", "agent_dir"]

# The variable TinyElf passes the resolved credentials of a call in: a JSON
# list of {"credential", "key", "env", "value"}.
_TABLE_VAR = "TINYELF_CREDENTIALS"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


class ToolConfigError(KeyError):
    """A credential (or other setting) a tool needs is not configured.

    It is a KeyError as well, so tools that caught the KeyError of earlier
    TinyElf versions still do."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def _table() -> list[dict]:
    raw = os.environ.get(_TABLE_VAR, "")
    if not raw:
        return []
    try:
        data = json.loads(raw)
    except ValueError:
        return []
    return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []


def _env_for(credential_name: str, env_var: str | None) -> str:
    if env_var:
        return env_var
    return credential_name if _ENV_NAME.match(credential_name or "") else ""


def get_credential(credential_name: str, tool_name: str | None = None, key_name: str = "api_key", env_var: str | None = None) -> str:
    """Returns the credential the tool asks for by name; raises
    ToolConfigError, saying where the user can set it, when it is nowhere."""
    key_name = key_name or "api_key"
    env = _env_for(credential_name, env_var)
    table = _table()
    for exact in (True, False):
        for e in table:
            if e.get("credential") == credential_name and (e.get("key") or "api_key") == key_name and (not exact or e.get("env", "") == env):
                value = e.get("value")
                if isinstance(value, str) and value:
                    return value
    if env:
        value = os.environ.get(env)
        if value:
            return value
    where = ["Settings credentials.%s%s" % (credential_name, "" if key_name == "api_key" else ".keys." + key_name)]
    if env:
        where += ["the vault (Settings > Tools) as %s" % env, "the shared credentials file", "the environment variable %s" % env]
    raise ToolConfigError(
        "Tool '%s' requires credential '%s', which is not set. Set it in: %s. (TinyElf passes a tool only the credentials it "
        "declares in CREDENTIALS or asks for with get_credential(...) arguments written out in its code.)"
        % (tool_name or os.environ.get("TINYELF_TOOL", "?"), credential_name, " or ".join(where))
    )


def resolve_env_style_credential(key: str) -> str | None:
    """Returns an environment-style credential (the vault, the shared
    credentials file, the environment), or None when it is not set."""
    for e in _table():
        if e.get("env") == key and isinstance(e.get("value"), str) and e.get("value"):
            return e["value"]
    return os.environ.get(key) or None


def __getattr__(name: str):
    # The agent's folder, read when asked (a forked call has its own).
    if name in ("anima_dir", "agent_dir"):
        return os.environ.get("TINYELF_AGENT_DIR", "")
    raise AttributeError(name)
