"""`vybe doctor` says whether Claude Code's ANTHROPIC_BASE_URL, each Codex provider's
base_url and each OpenCode provider's baseURL point at a vybe proxy that answers; it asks
only this machine. Only nothing answering there is a failure: another model server there is
said, not failed."""

from __future__ import annotations

import json
import socket

import pytest

from tests.fakes.servers import FakeServer, Response
from vybe.proxy.relay import Options, ProxyServer


def doctor(vybe, **env: str) -> dict:
    vybe.env.update(env)
    return vybe.ok("doctor")


def checks_of(vybe, **env: str) -> dict[str, dict]:
    data = doctor(vybe, **env)
    return {c["name"]: c for c in data["checks"] if c["name"].startswith("proxy_")}


def codex_provider(home, url: str):
    home.mkdir()
    (home / "config.toml").write_text(
        f'[model_providers.gateway]\nname = "g"\nbase_url = "{url}/v1"\nwire_api = "responses"\n'
    )
    return str(home)


def dead_port() -> int:
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        return spare.getsockname()[1]


def test_a_base_url_at_a_running_proxy_is_found_for_claude_and_for_codex(vybe, tmp_path):
    codex = tmp_path / "codex"
    codex.mkdir()
    with ProxyServer(Options("http://127.0.0.1:9")) as proxy:
        (codex / "config.toml").write_text(
            f'[model_providers.vybe]\nname = "v"\nbase_url = "{proxy.url}/v1"\n'
            'wire_api = "responses"\n'
        )
        found = checks_of(vybe, ANTHROPIC_BASE_URL=proxy.url, CODEX_HOME=str(codex))
    assert found["proxy_claude"]["ok"] and "a vybe proxy answers" in found["proxy_claude"]["detail"]
    assert found["proxy_codex_vybe"]["ok"]


def test_a_local_base_url_where_nothing_answers_fails_and_a_remote_one_is_not_asked(vybe):
    dead = checks_of(vybe, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{dead_port()}")
    assert not dead["proxy_claude"]["ok"]
    assert "vybe proxy --upstream" in dead["proxy_claude"]["detail"]
    remote = checks_of(vybe, ANTHROPIC_BASE_URL="https://gateway.example.com")
    assert remote["proxy_claude"]["ok"] and "not asked" in remote["proxy_claude"]["detail"]


def test_no_base_url_is_no_failure(vybe):
    vybe.env.pop("ANTHROPIC_BASE_URL", None)
    assert checks_of(vybe)["proxy_claude"]["ok"]


@pytest.mark.parametrize(
    "probe",
    [Response(body={"data": []}), Response(status=404, body={"error": "not found"})],
    ids=["answers-200", "answers-404"],
)
def test_a_model_server_that_is_not_a_vybe_proxy_is_said_and_is_no_failure(vybe, tmp_path, probe):
    """A local gateway (LiteLLM, Ollama, a test's fake server) answers, whatever its status:
    the client's requests reach a model, only vybe's checkpoints are not in the way."""
    with FakeServer(lambda received: Response(), probe=probe) as server:
        data = doctor(
            vybe,
            ANTHROPIC_BASE_URL=server.url,
            CODEX_HOME=codex_provider(tmp_path / "codex", server.url),
        )
    found = {c["name"]: c for c in data["checks"] if c["name"].startswith("proxy_")}
    for name in ("proxy_claude", "proxy_codex_gateway"):
        assert found[name]["ok"], found[name]
        assert "a model server answers there; not a vybe proxy" in found[name]["detail"]
    assert data["ok"], [c for c in data["checks"] if not c["ok"]]
    assert [r.path for r in server.received] == ["/.vybe-proxy", "/.vybe-proxy"]


def test_an_opencode_provider_at_a_running_proxy_is_found_and_a_dead_one_fails(vybe, tmp_path):
    config = tmp_path / "xdg" / "opencode" / "opencode.json"
    config.parent.mkdir(parents=True)
    dead = f"http://127.0.0.1:{dead_port()}/v1"
    with ProxyServer(Options("http://127.0.0.1:9")) as proxy:
        providers = {
            "anthropic": {"options": {"baseURL": f"{proxy.url}/v1"}},
            "local": {"options": {"baseURL": dead}},
            "plain": {"npm": "@ai-sdk/openai-compatible"},
        }
        config.write_text(json.dumps({"provider": providers}))
        found = checks_of(vybe, XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    assert found["proxy_opencode_anthropic"]["ok"]
    assert "a vybe proxy answers" in found["proxy_opencode_anthropic"]["detail"]
    assert not found["proxy_opencode_local"]["ok"] and "proxy_opencode_plain" not in found
    config.write_text("{not json")
    assert not checks_of(vybe)["proxy_opencode"]["ok"]
