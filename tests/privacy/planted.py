"""Planted secrets: two of each of 20 shapes of real credentials, made from a fixed seed (so
no real key is in the repository), each in the setting a session would show it in."""

from __future__ import annotations

import base64
import random
import string

ALNUM = string.ascii_letters + string.digits


def _word(rng: random.Random, size: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


def _jwt(rng: random.Random) -> str:
    def part(data: str) -> str:
        return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")

    header = part('{"alg":"HS256","typ":"JWT"}')
    body = part(f'{{"sub":"{_word(rng, 12)}","iat":1700000000}}')
    return f"{header}.{body}.{_word(rng, 43, ALNUM + '_-')}"


def _pem(rng: random.Random) -> str:
    lines = [_word(rng, 64, ALNUM + "+/") for _ in range(6)]
    return (
        "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END RSA PRIVATE KEY-----"
    )


# shape -> (the secret from a generator, the line it is shown in)
SHAPES = {
    "aws-access-key": (
        lambda r: "AKIA" + _word(r, 16, string.ascii_uppercase + "234567"),
        "aws_access_key_id = {s}",
    ),
    "github-pat": (lambda r: "ghp_" + _word(r, 36), "export GH_TOKEN={s}"),
    "github-fine-grained": (lambda r: "github_pat_" + _word(r, 82, ALNUM + "_"), "token: {s}"),
    "gitlab-pat": (lambda r: "glpat-" + _word(r, 20), "git clone with {s}"),
    "slack-bot": (
        lambda r: (
            f"xoxb-{_word(r, 12, string.digits)}-{_word(r, 12, string.digits)}-{_word(r, 24)}"
        ),
        "SLACK {s}",
    ),
    "stripe": (lambda r: "sk_live_" + _word(r, 32), "stripe.api_key = '{s}'"),
    "openai": (
        lambda r: "sk-proj-" + _word(r, 74, ALNUM + "_-") + "T3BlbkFJ" + _word(r, 74, ALNUM + "_-"),
        "OPENAI_API_KEY={s}",
    ),
    "anthropic": (
        lambda r: "sk-ant-api03-" + _word(r, 93, ALNUM + "_-") + "AA",
        "use {s} for claude",
    ),
    "jwt": (_jwt, "Authorization: Bearer {s}"),
    "pem": (_pem, "the key file:\n{s}\n"),
    "gcp-service-account": (_pem, '{{"type": "service_account", "private_key": "{s}"}}'),
    "gcp-api-key": (lambda r: "AIza" + _word(r, 35, ALNUM + "_-"), "maps key {s}"),
    "azure-client-secret": (
        lambda r: _word(r, 3) + "8Q~" + _word(r, 34, ALNUM + "_~.-"),
        "client_secret: {s}",
    ),
    "url-password": (
        lambda r: _word(r, 16),
        "DATABASE_URL=postgres://app:{s}@db.internal:5432/app",
    ),
    "dsn-password": (lambda r: _word(r, 14), "redis connect rediss://default:{s}@cache:6380"),
    "api-key-assignment": (lambda r: _word(r, 40), "SERVICE_API_KEY={s}"),
    "token-assignment": (lambda r: _word(r, 32), "DEPLOY_TOKEN={s}"),
    "secret-assignment": (lambda r: _word(r, 28), "WEBHOOK_SECRET={s}"),
    "password-assignment": (lambda r: _word(r, 20), "PASSWORD={s}"),
    "npm-token": (lambda r: "npm_" + _word(r, 36), "//registry.npmjs.org/:_authToken={s}"),
}


def planted(seed: int = 37) -> list[tuple[str, str, str]]:
    """(shape, secret, the line it is shown in): 40 of them, two per shape. Every secret
    holds a digit, as the generic rules ask of a secret."""
    rng = random.Random(seed)
    found = []
    for shape, (make, line) in SHAPES.items():
        for _ in range(2):
            secret = make(rng)
            while not any(c.isdigit() for c in secret):
                secret = make(rng)
            found.append((shape, secret, line.format(s=secret)))
    return found


def needles(secret: str) -> list[str]:
    """What must not be found of a secret: the secret itself or, for a key block, each of
    its lines."""
    return [line for line in secret.splitlines() if len(line) > 20 and "-----" not in line] or [
        secret
    ]
