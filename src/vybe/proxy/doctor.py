"""`vybe doctor`'s view of the proxy's setup: where Claude Code, Codex and Gemini CLI send
their model requests, and whether a vybe proxy answers there.

Claude Code's is ``ANTHROPIC_BASE_URL``; Gemini CLI's ``GOOGLE_GEMINI_BASE_URL``; Codex's,
each ``[model_providers.<name>]`` entry's ``base_url`` in its config.toml (the table is read
by the caller). Only a base URL on this
machine is asked (``GET /.vybe-proxy``, a short timeout): the doctor reaches no network. A
base URL elsewhere, or none, is the person's choice and no failure, and so is a local model
server that is not a vybe proxy (LiteLLM, Ollama, a company's gateway): it is said, not
failed. Only a base URL on this machine where nothing answers HTTP is a failure (the
client's requests would fail).
"""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

from vybe.proxy import wire

LOCAL = ("127.0.0.1", "localhost", "::1")
GEMINI_BASE_URL = "GOOGLE_GEMINI_BASE_URL"
TIMEOUT = 1.0


# What answers at a base URL on this machine.
PROXY, OTHER, NOTHING = "proxy", "other", "nothing"


def answers(url: str) -> str | None:
    """Who answers at ``url``: a vybe proxy (PROXY), another HTTP server (OTHER) or nothing
    (NOTHING); None for a URL not on this machine (not asked)."""
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname not in LOCAL:
        return None
    conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=TIMEOUT)
    try:
        conn.request("GET", wire.PROBE_PATH)
        response = conn.getresponse()
        body = response.read(1024)
    except (OSError, http.client.HTTPException):
        return NOTHING
    finally:
        conn.close()
    return PROXY if response.status == 200 and _says_proxy(body) else OTHER


def _says_proxy(body: bytes) -> bool:
    try:
        found = json.loads(body or b"null")
    except ValueError:
        return False
    return isinstance(found, dict) and found.get("vybe_proxy") is True


DETAILS = {
    None: "not on this machine, not asked",
    PROXY: "a vybe proxy answers there",
    OTHER: "a model server answers there; not a vybe proxy, so vybe's checkpoints are not"
    " in the way",
    NOTHING: "nothing answers there (start the server it names, or: vybe proxy --upstream …)",
}


def _check(name: str, url: str | None, where: str) -> dict[str, Any]:
    if not url:
        return {"name": name, "ok": True, "detail": f"{where} is not set: no proxy in the way"}
    found = answers(url)
    return {"name": name, "ok": found != NOTHING, "detail": f"{where} = {url}: {DETAILS[found]}"}


def checks(environ: dict[str, str], codex_config: dict[str, Any]) -> list[dict[str, Any]]:
    """One check for Claude Code's base URL, one for Gemini CLI's, one for each Codex provider
    with a base URL."""
    found = [
        _check("proxy_claude", environ.get("ANTHROPIC_BASE_URL"), "ANTHROPIC_BASE_URL"),
        _check("proxy_gemini", environ.get(GEMINI_BASE_URL), GEMINI_BASE_URL),
    ]
    providers = codex_config.get("model_providers")
    for name, entry in (providers if isinstance(providers, dict) else {}).items():
        url = entry.get("base_url") if isinstance(entry, dict) else None
        if isinstance(url, str):
            where = f"codex model_providers.{name}.base_url"
            found.append(_check(f"proxy_codex_{name}", url, where))
    return found
