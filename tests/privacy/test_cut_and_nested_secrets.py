"""Secrets where a filter that looks at one whole string at a time would miss them: cut in two
by a bounded preview, written as JSON inside JSON (its quotes escaped), named only by the
key of a JSON object, or a random value that happens to hold one of gitleaks' stop words.
Each is pushed through a real entry path and the store's bytes are searched for it."""

from __future__ import annotations

import json
import random

import pytest

from tests.privacy.planted import ALNUM, _word, planted
from tests.privacy.test_planted_secrets import home_bytes, store_bytes
from vybe import privacy

RNG = random.Random(41)
GITHUB = "ghp_" + _word(RNG, 36)
ANTHROPIC = "sk-ant-api03-" + _word(RNG, 93, ALNUM + "_-") + "AA"
ASSIGNED = _word(RNG, 40)


def pieces(secret: str, size: int = 12) -> list[bytes]:
    """Every run of ``size`` characters of ``secret``: a part of it found is a part kept."""
    return [secret[i : i + size].encode() for i in range(len(secret) - size + 1)]


def assert_none_of(found: bytes, *secrets: str) -> None:
    for secret in secrets:
        kept = [p for p in pieces(secret) if p in found]
        assert not kept, (secret[:8], kept[:3])


def test_a_secret_cut_by_a_bounded_event_leaves_no_part_of_it_in_the_store(vybe, agent):
    prompt = "a" * 437 + " token " + GITHUB + " please rotate it " + "b" * 200
    assert agent.send("claude", "user_prompt_submit", prompt=prompt).code == 0
    error = "z" * 3950 + " " + ANTHROPIC
    assert agent.send("claude", "post_tool_use_failure", error=error).code == 0

    found = store_bytes(vybe) + home_bytes(vybe)
    assert b"[REDACTED:github-pat]" in found and b"more characters]" in found
    assert_none_of(found, GITHUB, ANTHROPIC)


def test_a_tool_inputs_assignment_is_redacted_where_the_input_is_written_as_json(vybe, agent):
    command = f'deploy --env prod SERVICE_API_KEY="{ASSIGNED}" && echo done'
    done = agent.send("claude", "post_tool_use_failure", tool_input={"command": command})
    assert done.code == 0

    (metadata,) = vybe.sql("SELECT metadata FROM events WHERE kind = 'tool_failure'")[0]
    assert "deploy --env prod" in json.loads(metadata)["input_preview"]
    assert_none_of(store_bytes(vybe) + home_bytes(vybe), ASSIGNED)


def test_a_json_value_named_a_credential_by_its_key_is_redacted_on_every_copy(vybe):
    metadata = json.dumps({"DB_PASSWORD": ASSIGNED, "note": "the staging database"})
    first = vybe("task", "create", "--title", "t", "--metadata", metadata, "--request-id", "r1")
    again = vybe("task", "create", "--title", "t", "--metadata", metadata, "--request-id", "r1")

    assert first.envelope["data"] == again.envelope["data"]  # the replay is the reply
    (kept,) = vybe.sql("SELECT metadata FROM tasks")[0]
    assert json.loads(kept) == {
        "DB_PASSWORD": "[REDACTED:generic-api-key]",
        "note": "the staging database",
    }
    assert_none_of(store_bytes(vybe), ASSIGNED)


def test_a_json_value_is_kept_where_its_key_names_no_credential():
    document = json.dumps({"title": f"build {ASSIGNED[:12]}", "password_hint": "the usual"})
    assert privacy.scrub_json(document) == document


@pytest.mark.parametrize(("shape", "secret", "line"), planted(), ids=lambda v: str(v)[:24])
def test_scrubbing_what_was_scrubbed_changes_nothing(shape, secret, line):
    for text in (line, f"https://user:{secret}@example.com/x", json.dumps({"key": line})):
        once = privacy.scrub(text)
        assert privacy.scrub(once) == once


# Random values, each holding a stop word of gitleaks' generic rule inside it (proc, arch,
# ajax, akka), which its substring test takes for a word and lets through.
RANDOM_WITH_STOP_WORDS = [
    "rkWXD54ZyJjq6xwZProCcSGgTcngY7v1hyvWNF7x",
    "Q7arCHx2mZ9pL4vT8wN1kR6yB3dF5hJ0",
    "u8Nz3AjaXq7Wm2Kp9Rt4Vb6Yc1Ld5Fs0",
    "T5akKaPq2Zm8Xw4Rn7Lv1Bc9Dy3Fh6Jg",
]
# Names and expressions that hold a stop word as one of their words: still not secrets.
NAMES_WITH_STOP_WORDS = [
    "API_KEY=process.env.OPENAI_API_KEY_2",
    "token = getProcessToken2FromEnv()",
    'BRIEF_FIELDS = ("budget", "brief_sha256")',
    "token=getTokenFromStorage",
]


@pytest.mark.parametrize("value", RANDOM_WITH_STOP_WORDS)
def test_a_random_value_holding_a_stop_word_inside_it_is_redacted(value):
    assert privacy.scrub(f"WEBHOOK_SECRET={value}") == "WEBHOOK_SECRET=[REDACTED:generic-api-key]"


@pytest.mark.parametrize("text", NAMES_WITH_STOP_WORDS)
def test_a_name_whose_word_is_a_stop_word_is_not_a_secret(text):
    assert privacy.scrub(text) == text


def test_a_random_run_of_letters_is_a_secret_though_it_holds_no_digit():
    assert privacy.scrub("DEPLOY_TOKEN=rkWXDZyJjqxwZPrCcSGgTcngYvhyvWNF") == (
        "DEPLOY_TOKEN=[REDACTED:generic-api-key]"
    )


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        (
            "postgres://app:S3cr@tXk9mQ2pL7@db:5432/x",
            "postgres://app:[REDACTED:url-password]@db:5432/x",
        ),
        (
            "https://u:pa55word@host.com/p?mail=a@b.com",
            "https://u:[REDACTED:url-password]@host.com/p?mail=a@b.com",
        ),
    ],
)
def test_a_url_password_with_an_unencoded_at_sign_is_redacted_whole(url, kept):
    assert privacy.scrub(url) == kept


# Credentials gitleaks' generic rule cannot see: their values hold symbols it does not
# take (its value is letters, digits and ._-=).
ASSIGNED_WITH_SYMBOLS = [
    ("SECRET_KEY = 'django-insecure-k3#n$8x@q!z2w9v&b^1m(t)p-r+e'", "quoted-secret"),
    ('password: "p@ssW0rd!2024#xQz"', "quoted-secret"),
    ('{"api_key" : "a8F#kL2@pQ9!zX4$"}', "quoted-secret"),
    ("DB_PASS=Xk9#mQ2$pL7!vR4", "env-secret"),
    ("export MYSQL_PWD=Tq8mZ2vL9xR4", "env-secret"),
]
# Assignments of the same names that hold no credential: a reference, a placeholder, code,
# a count, or a name that only begins with a credential's word.
ASSIGNED_NO_SECRET = [
    'password = "${DB_PASSWORD}"',
    'password: "<password>"',
    "TOKEN=$GITHUB_TOKEN",
    "API_KEY=process.env.OPENAI_API_KEY_2",
    'SECRET_KEY = os.environ.get("SECRET_KEY")',
    '{"token_count": "12345678"}',
    'max_tokens: "4096"',
    "cache_key = 'user:42:profile'",
    'the key point is: "ship it"',
]


@pytest.mark.parametrize(("text", "rule"), ASSIGNED_WITH_SYMBOLS)
def test_a_credentials_value_with_symbols_is_redacted_by_vybes_own_rules(text, rule):
    kept = privacy.scrub(text)
    assert f"[REDACTED:{rule}]" in kept
    assert privacy.scrub(kept) == kept


@pytest.mark.parametrize("text", ASSIGNED_NO_SECRET)
def test_an_assignment_of_a_reference_placeholder_or_count_is_kept(text):
    assert privacy.scrub(text) == text


def test_a_printed_env_files_symbol_values_never_reach_the_store(vybe, agent):
    env = 'DB_PASS=Xk9#mQ2$pL7!vR4\nAPI_SECRET="a8F#kL2@pQ9!zX4$"\nDEBUG=1'
    assert agent.send("claude", "user_prompt_submit", prompt=f"my .env:\n{env}").code == 0
    found = store_bytes(vybe) + home_bytes(vybe)
    assert b"DEBUG=1" in found
    assert b"Xk9#mQ2$pL7" not in found and b"a8F#kL2@pQ9" not in found


def test_a_dsn_with_no_user_has_its_password_redacted():
    text = "REDIS_URL=redis://:haU1OhxK3GAorc1d@cache:6379/0"
    assert privacy.scrub(text) == "REDIS_URL=redis://:[REDACTED:url-password]@cache:6379/0"


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(json.dumps({"api_token": ASSIGNED})),  # JSON in a JSON string
        json.dumps({"output": f'config {{"DB_PASSWORD": "{ASSIGNED}"}}'}),  # a tool's output
        f'line one\\nline two password=\\"{ASSIGNED}\\"',  # a shell's escaped quotes
    ],
)
def test_an_assignment_written_with_escaped_quotes_is_redacted_in_place(text):
    kept = privacy.scrub(text)
    assert ASSIGNED not in kept and "[REDACTED:generic-api-key]" in kept
    assert len(kept) < len(text) and kept.count("\\") == text.count("\\")


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9Qm4nR8sT",
            "Authorization: Bearer [REDACTED:authorization-header]",
        ),
        (
            '"authorization": "Basic dXNlcjpwYXNzd29yZDEyMw=="',
            '"authorization": "Basic [REDACTED:authorization-header]"',
        ),
        ("mysql -u root -pTq8mZ2vL9xR4 db", "mysql -u root -p[REDACTED:mysql-password] db"),
        ("Authorization: Bearer $TOKEN", "Authorization: Bearer $TOKEN"),
        ("mysql -u root -p db", "mysql -u root -p db"),
    ],
)
def test_an_authorization_header_and_a_mysql_password_are_redacted_anywhere(text, kept):
    assert privacy.scrub(text) == kept


def test_a_json_values_symbols_are_redacted_where_its_key_names_a_password():
    document = json.dumps({"db_pass": "Xk9#mQ2$pL7!vR4", "note": "the staging database"})
    assert json.loads(privacy.scrub_json(document)) == {
        "db_pass": "[REDACTED:quoted-secret]",
        "note": "the staging database",
    }
