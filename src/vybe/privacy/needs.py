"""What every match of the costliest of gitleaks' allow patterns holds: a subject that holds
none of it is not searched with the pattern, which is then not compiled (the generic rule's
allow-list on its whole match takes ~1 ms to compile, more than the rule and its gate
together, and a prompt holding a token pays it on the hook path).

Each test takes the subject lowered and is made only on an ASCII subject: under ``(?i)`` a
character outside ASCII can match an ASCII letter (the Kelvin sign matches ``k``), so a
subject with one is searched as before. A test is keyed by its pattern's exact text: a
regenerated rule whose pattern changed loses its test (and is compiled as before) rather
than keep one that no longer holds. tests/privacy/test_hook_cost.py holds each test to its
pattern on generated matches.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# gitleaks' generic-api-key, its allow-list on the whole match (a name around the keyword
# that no credential's is: access_id, api_version, public_key, keyboard, ...).
GENERIC_MATCH = (
    "(?i)(?:access(?:ibility|or)|access[_.-]?id|random[_.-]?access|api[_.-]?(?:id"
    "|name|version)|rapid|capital|[a-z0-9-]*?api[a-z0-9-]*?:jar:|author"
    "|X-MS-Exchange-Organization-Auth|Authentication-Results|(?:credentials?[_.-]?id"
    "|withCredentials)|(?:bucket|foreign|hot|idx|natural|primary|pub(?:lic)?|schema"
    "|sequence)[_.-]?key|(?:turkey)|key[_.-]?(?:alias|board|code|frame|id|length|mesh"
    "|name|pair|press(?:ed)?|ring|selector|signature|size|stone|storetype|word|up"
    "|down|left|right)|key[_.-]?vault[_.-]?(?:id|name)|keyVaultToStoreSecrets"
    "|key(?:store|tab)[_.-]?(?:file|path)|issuerkeyhash|(?-i:[DdMm]onkey|[DM]ONKEY)"
    "|keying|(?:secret)[_.-]?(?:length|name|size)|UserSecretsId|(?:csrf)[_.-]?token"
    "|(?:io\\.jsonwebtoken[ \\t]?:[ \\t]?[\\w-]+)|(?:api|credentials"
    "|token)[_.-]?(?:endpoint|ur[il])|public[_.-]?token|(?:key|token)[_.-]?file"
    "|(?-i:(?:[A-Z_]+=\\n[A-Z_]+=|[a-z_]+=\\n[a-z_]+=)(?:\\n|\\Z))"
    "|(?-i:(?:[A-Z.]+=\\n[A-Z.]+=|[a-z.]+=\\n[a-z.]+=)(?:\\n|\\Z)))"
)
# A word of each of its alternatives (an alternative whose word is in another's is left to
# that one's: "rapid", "idx" and "UserSecretsId" hold "id", "public" holds "pub").
GENERIC_MATCH_WORDS = (
    "accessibility", "accessor", "id", "random", "name", "version", "capital", ":jar:",
    "author", "x-ms-exchange-organization-auth", "authentication-results",
    "withcredentials", "bucket", "foreign", "hot", "natural", "primary", "pub", "schema",
    "sequence", "turkey", "alias", "board", "code", "frame", "length", "mesh", "pair",
    "press", "ring", "selector", "signature", "size", "stone", "storetype", "word", "up",
    "down", "left", "right", "vault", "keystore", "keytab", "issuerkeyhash", "onkey",
    "keying", "csrf", "io.jsonwebtoken", "endpoint", "url", "uri", "file", "=\n",
)  # fmt: skip


def _holds_one_of(words: tuple[str, ...]) -> Callable[[str], bool]:
    return lambda lowered: any(word in lowered for word in words)


def _one_character_repeated(lowered: str) -> bool:
    """What ``^(?i:a+|...|\\*+|\\.+)$`` needs: one character over and over (``$`` also
    matches before a last newline)."""
    return len(set(lowered.rstrip("\n"))) <= 1


# pattern -> whether a lowered ASCII subject could hold a match of it
NEEDS: dict[str, Callable[[str], bool]] = {
    GENERIC_MATCH: _holds_one_of(GENERIC_MATCH_WORDS),
    # gitleaks' global allow-list: "true" at the start, "false" anywhere, "null" at the end
    "(?i)^true|false|null$": _holds_one_of(("true", "false", "null")),
    (
        "^(?i:a+|b+|c+|d+|e+|f+|g+|h+|i+|j+|k+|l+|m+|n+|o+|p+|q+|r+|s+|t+|u+|v+|w+|x+|y+|z+"
        "|\\*+|\\.+)$"
    ): _one_character_repeated,
}
