"""OpenCode's part of `vybe setup`: a provider of its global config pointed at `vybe proxy`.

OpenCode has no hook that can give the person's words back after its compaction; `vybe
proxy` answers that compaction with a checkpoint (vybe.proxy.compaction). Setup points the
``anthropic`` provider's ``baseURL`` in ``$XDG_CONFIG_HOME/opencode/opencode.json`` at the
proxy's default address (``vybe proxy --upstream https://api.anthropic.com``, on
127.0.0.1:8788; the upstream's ``/v1`` on the proxy's side). A provider whose ``baseURL``
the person set already (a gateway of theirs) is left to them, with the line to change.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

PROVIDER = "anthropic"
PROXY_URL = "http://127.0.0.1:8788/v1"
START = "start the proxy before OpenCode: vybe proxy --upstream https://api.anthropic.com"


def home() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return Path(base) / "opencode"


def config_path() -> Path:
    return home() / "opencode.json"


def _options(document: dict[str, Any]) -> dict[str, Any] | None:
    """The provider's options object, None where the person's file has another shape there."""
    providers = document.setdefault("provider", {})
    provider = providers.setdefault(PROVIDER, {}) if isinstance(providers, dict) else None
    options = provider.setdefault("options", {}) if isinstance(provider, dict) else None
    return options if isinstance(options, dict) else None


def pointed(document: dict[str, Any]) -> tuple[dict[str, Any], list[str], list[str]]:
    """The config with the provider pointed at the proxy; what changed; what only the person
    can do (a base URL of theirs)."""
    path = config_path()
    options = _options(document)
    if options is None:
        return document, ["as it was"], [f"{path}: provider.{PROVIDER} is not an object"]
    given = options.get("baseURL")
    if given not in (None, PROXY_URL):
        left = (
            f"{path}: provider.{PROVIDER}.options.baseURL is {given}: run vybe proxy --upstream"
            f" with it (without /v1) and set the base URL to {PROXY_URL}"
        )
        return document, ["as it was"], [left]
    state = "as it was" if given == PROXY_URL else "set"
    options["baseURL"] = PROXY_URL
    return document, [f"provider {PROVIDER}: baseURL {PROXY_URL} (vybe proxy): {state}"], [START]


def take_out(document: dict[str, Any]) -> None:
    """setup's base URL out of a config OpenCode (or the person) changed since."""
    providers = document.get("provider")
    provider = providers.get(PROVIDER) if isinstance(providers, dict) else None
    options = provider.get("options") if isinstance(provider, dict) else None
    if isinstance(options, dict) and options.get("baseURL") == PROXY_URL:
        del options["baseURL"]
    for parent, key, child in ((provider, "options", options), (providers, PROVIDER, provider)):
        if isinstance(parent, dict) and child == {}:
            del parent[key]
    if providers == {}:
        del document["provider"]
