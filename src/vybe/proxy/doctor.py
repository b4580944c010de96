"""`vybe doctor`'s view of the proxy's setup: where Claude Code and Codex send their model
requests, and whether a vybe proxy answers there.

Claude Code's is ``ANTHROPIC_BASE_URL``; Codex's, each ``[model_providers.<name>]`` entry's
``base_url`` in its config.toml (the table is read by the caller). Only a base URL on this
machine is asked (``GET /.vybe-proxy``, a short timeout): the doctor reaches no network. A
base URL elsewhere, or none, is the person's choice and no failure; one on this machine
where nothing answers is (the client's requests would fail).
"""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

from vybe.proxy import wire

LOCAL = ("127.0.0.1", "localhost", "::1")
TIMEOUT = 1.0


def answers(url: str) -> bool | None:
    """Whether a vybe proxy answers at ``url`` (True / False), or None for a URL not on this
    machine (not asked)."""
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname not in LOCAL:
        return None
    conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=TIMEOUT)
    try:
        conn.request("GET", wire.PROBE_PATH)
        response = conn.getresponse()
        body = json.loads(response.read(1024) or b"null")
    except (OSError, http.client.HTTPException, ValueError):
        return False
    finally:
        conn.close()
    return response.status == 200 and isinstance(body, dict) and body.get("vybe_proxy") is True


def _check(name: str, url: str | None, where: str) -> dict[str, Any]:
    if not url:
        return {"name": name, "ok": True, "detail": f"{where} is not set: no proxy in the way"}
    found = answers(url)
    if found is None:
        detail = f"{where} = {url}: not on this machine, not asked"
    elif found:
        detail = f"{where} = {url}: a vybe proxy answers there"
    else:
        detail = f"{where} = {url}: no vybe proxy answers there (start: vybe proxy --upstream …)"
    return {"name": name, "ok": found is not False, "detail": detail}


def checks(environ: dict[str, str], codex_config: dict[str, Any]) -> list[dict[str, Any]]:
    """One check for Claude Code's base URL, one for each Codex provider with a base URL."""
    found = [_check("proxy_claude", environ.get("ANTHROPIC_BASE_URL"), "ANTHROPIC_BASE_URL")]
    providers = codex_config.get("model_providers")
    for name, entry in (providers if isinstance(providers, dict) else {}).items():
        url = entry.get("base_url") if isinstance(entry, dict) else None
        if isinstance(url, str):
            where = f"codex model_providers.{name}.base_url"
            found.append(_check(f"proxy_codex_{name}", url, where))
    return found
