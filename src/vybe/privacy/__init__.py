"""What vybe keeps out of its store: private spans, and secrets of well-known shapes.

``strip_private`` removes the text between ``<private>`` and ``</private>`` (an unclosed tag
removes everything after it: fail closed); ``redact`` replaces each credential gitleaks'
default rules find (``rules.py``, generated from its config/gitleaks.toml, MIT) and the
passwords of URLs and DSNs with ``[REDACTED:<rule>]``; ``scrub`` does both, as the user's
config says (``privacy.redact``, ``privacy.patterns``, ``privacy.allow``), and is what the
store calls on every text it writes (docs/privacy.md).

Keywords first, patterns second, as gitleaks does: a text is lowered and tested for each
rule's keywords with ``in``; only a rule whose keyword is there is compiled (once per
process) and run, so a text that holds none imports neither ``re`` nor the rules: the hook
path's budget (docs/architecture.md).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Any, TypeAlias

    # A rule's allowlist (what it matches, its patterns, its stop words) and a compiled rule
    # (name, pattern, keyword lead, secret group, entropy floor, allowlists: their patterns
    # compiled only when a secret could match one, by _searched).
    Allow: TypeAlias = tuple[str, tuple[str, ...], tuple[str, ...]]
    Rule: TypeAlias = tuple[str, re.Pattern[str], int, int, float, tuple[Allow, ...]]

OPEN, CLOSE = "<private>", "</private>"
PRIVATE_MARKER = "[private]"  # a message that was private from end to end
MARK = "[REDACTED:"
# vybe's own rule beside gitleaks': a password between a URL's user and host
# (postgres://me:pw@db, https://u:p@host, redis://:pw@cache). Keywords: both must be there.
# The password runs to the last @ before the host: one with an @ left unencoded is whole.
URL_RULE = (
    "url-password",
    r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}://[^\s:/@'\"]*:([^\s/@'\"]+(?:@[^\s/@'\"]+)*)@",
)
URL_WORDS = ("://", "@")
# A private key's block cut before its END line (a preview, a cut tool output): its body
# runs as far as base64, whitespace and JSON's escaped newlines go.
KEY_BODY = (
    "private-key",
    r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----((?:\\n|[\sA-Za-z0-9+/=])+)",
)
# vybe's own rules beside gitleaks' generic one, whose value is letters, digits and ._-=
# only: a credential's name assigned a value with other symbols, quoted
# (password: "p@ss#W0rd", SECRET_KEY = 'django-insecure-k3#n$…') or in a shell's or an
# .env file's NAME=value (DB_PASS=Xk9#mQ2$pL7). The name ends in the credential's word (no
# token_count, max_tokens or cache_key; a key only as KEY_OWNERS': api_key, SECRET_KEY);
# the value has a digit or a symbol and is no placeholder (_plain_value). Each is matched
# where str.find puts a credential's word, not searched for along the text.
CREDENTIAL = r"(?:passw(?:or)?d|pass|pwd|secret|token|key|credentials?)"
QUOTED_RULE = (
    "quoted-secret",
    rf"(?i:{CREDENTIAL})[\"']?[ \t]{{0,3}}(?::=|=>|=|:)[ \t]{{0,3}}"
    r"([\"'])([^\"'\s\\]{8,200})\1",
)
ENV_RULE = ("env-secret", rf"{CREDENTIAL.upper()}=([^\s\"'`$][^\s\"'`]{{7,199}})")
# An HTTP Authorization header's credentials anywhere (gitleaks knows them in a curl command
# only), and MySQL's client given its password glued to -p.
AUTH_RULE = (
    "authorization-header",
    r"(?i:authorization)[\"']?[ \t]{0,3}[:=][ \t]{0,3}[\"']?(?i:basic|bearer|token|digest)"
    r"[ \t]+([A-Za-z0-9+/=._~-]{12,})",
)
MYSQL_RULE = (
    "mysql-password",
    r"mysql(?:dump|admin)?\b[^\n]{0,200}?[ \t]-p([^\s'\"-][^\s'\"]{5,})",
)
CREDENTIAL_WORDS = ("pass", "pwd", "secret", "token", "key", "credential", "authorization")
KEY_OWNERS = (
    "api", "secret", "private", "access", "client", "auth", "signing", "encryption", "master",
)  # fmt: skip
# gitleaks' generic-api-key rule's keywords (api, key, token, auth, …) are in ordinary
# prompts: this gate, its keyword, assignment and the first 10 characters of its value
# loosened to a superset, must match before the rule is compiled and run (a text it does
# not match cannot match the rule).
GATES = {
    "generic-api-key": r"(?i)(?:access|auth|api|credential|creds|key|passw(?:or)?d|secret"
    r"|token)[ \t\w.-]{0,20}[\s'\"]{0,3}(?:=|>|:|\|\||,)[\x60'\"\s=]{0,5}[\w.=+/-]{10}"
}
# The gate with str methods, on a text up to PRECHECKED characters (_assigned): one of
# GATE_WORDS, at most 23 characters of NAMED (its [ \t\w.-]{0,20}[\s'"]{0,3}), one of
# SEPARATORS ('|' standing for '||'), at most five of SKIPPED and ten characters of VALUE. A
# short text without them needs neither the rule nor re (with enum, ~2.5 ms of a hook); one
# with them goes straight to the rule, whose compile the gate's would only add to.
GATE_WORDS = (
    "access", "auth", "api", "credential", "creds", "key", "passwd", "password", "secret",
    "token",
)  # fmt: skip
SEPARATORS = "=>:|,"
SKIPPED = frozenset("`'\"= \t\n\r\f\v")
VALUE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.=+/-")
NAMED = VALUE - {"=", "+", "/"} | frozenset(" \t\n\r\f\v'\"")
PRECHECKED = 8192
# Rules whose keyword ordinary words hold ("sk" in task, "ey" in they, "s." after a
# plural, "test_" in a test's name) and the fewest characters their secret runs to, none
# of them a space: a text up to PRECHECKED characters whose longest word is shorter does
# not compile them (nor import re). tests/privacy/test_redaction.py holds each figure to
# its rule's pattern.
SHORTEST = {
    "twilio-api-key": 34,
    "jwt": 40,
    "lob-api-key": 40,
    "vault-service-token": 26,
    "authress-service-client-access-key": 59,
    "octopus-deploy-api-key": 30,
}
PLACEHOLDER = ("***", "xxx", "password", "pass", "secret", "<password>", "${", "$(", "%s")


def strip_private(text: str) -> str:
    """``text`` without its private spans; one that was nothing else is PRIVATE_MARKER.
    Fail closed both ways: an unclosed ``<private>`` keeps everything after it out, and a
    ``</private>`` with no opening before it everything before it (its span began in an
    earlier block of the message, or an earlier message)."""
    lowered = text.lower()
    if "private>" not in lowered:  # in both tags
        return text
    kept, at = [], 0
    while True:
        start, close = lowered.find(OPEN, at), lowered.find(CLOSE, at)
        if close != -1 and (start == -1 or close < start):
            at = close + len(CLOSE)  # a stray closing tag: what precedes it stays out
            continue
        if start == -1:
            kept.append(text[at:])
            break
        kept.append(text[at:start])
        end = lowered.find(CLOSE, start + len(OPEN))
        if end == -1:
            break  # unclosed: the rest stays out
        at = end + len(CLOSE)
    stripped = "".join(kept)
    return stripped if stripped.strip() else PRIVATE_MARKER


def entropy(text: str) -> float:
    """Shannon entropy in bits per character, as gitleaks measures a secret."""
    import math

    counts: dict[str, int] = {}
    for char in text:
        counts[char] = counts.get(char, 0) + 1
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


class Redactor:
    """gitleaks' rules, plus the user's patterns and allow-list, compiled as needed."""

    def __init__(self, patterns: list[Any] = (), allow: list[str] = ()) -> None:  # type: ignore[assignment]
        self.patterns = [(p["id"], p["regex"]) for p in patterns]
        self.allow = list(allow)
        self._compiled: dict[int, Rule] = {}
        self._user: list[tuple[str, Any]] | None = None
        self._allow: list[Any] | None = None

    def _rule(self, index: int) -> Rule:
        found = self._compiled.get(index)
        if found is None:
            import re

            from vybe.privacy.rules import RULES

            name, _, pattern, lead, group, floor, allows = RULES[index]
            found = (name, re.compile(pattern, re.ASCII), lead, group, floor, allows)
            self._compiled[index] = found
        return found

    def _wanted(self, lowered: str, within: frozenset[str] | None = None) -> list[int]:
        """The rules whose keywords are in ``lowered``, looked for among ``within`` (the
        keywords of a text holding it) or all."""
        from vybe.privacy.keywords import KEYWORDS

        present = [k for k in (KEYWORDS if within is None else within) if k in lowered]
        if not present:
            return []
        ruled = _rules_of()
        return sorted({i for k in present for i in ruled.get(k, ())})

    def spans(self, text: str, within: frozenset[str] | None = None) -> list[tuple[int, int, str]]:
        """(start, end, rule) of every secret found in ``text`` (``within``: ``_wanted``).
        JSON written inside a string (``{\\"DB_PASSWORD\\": \\"…\\"}``, a tool's output
        holding a config) is looked at with each backslash a space: the same length, so each
        span is the original's, and an assignment's quotes read as quotes again."""
        if '\\"' in text:
            text = text.replace("\\", " ")
        lowered = text.lower()
        found: list[tuple[int, int, str]] = []
        for index in self._wanted(lowered, within):
            if not _gate_open(index, text):
                continue
            name, pattern, lead, group, floor, allows = self._rule(index)
            for match in pattern.finditer(text):
                span = _secret_span(match, group)
                secret = text[span[0] : span[1]]
                whole = text[_walk_back(text, match.start(), lead) : match.end()]
                if self._kept(secret, whole, text, name, floor, allows):
                    continue
                found.append((*span, name))
        if all(word in text for word in URL_WORDS):
            found.extend(self._user_spans(text, [_compiled(URL_RULE)]))
        if _credential_assigned(text, lowered):
            taken = list(found)  # a value another rule named keeps that rule's name
            found.extend(
                (start, end, name)
                for start, end, name in self._assigned_spans(text)
                if not any(start < e and s < end for s, e, _ in taken)
            )
        if "-----begin" in lowered and "private key" in lowered:
            found.extend(self._user_spans(text, [_compiled(KEY_BODY)]))
        if self.patterns:
            found.extend(self._user_spans(text, self._user_rules()))
        return found

    def _assigned_spans(self, text: str) -> list[tuple[int, int, str]]:
        """The secrets of vybe's own assignment rules (QUOTED_RULE, ENV_RULE, AUTH_RULE,
        MYSQL_RULE), each tried where its word begins: the value's group, where it reads as
        a credential (_plain_value) and no allow-list lets it through."""
        lowered = text.lower()
        rules = [_compiled(QUOTED_RULE), _compiled(ENV_RULE), _compiled(AUTH_RULE)]
        places = [(at, rules) for at in _credential_words(lowered)]
        if "mysql" in lowered:
            mysql = [_compiled(MYSQL_RULE)]
            places += [(at, mysql) for at in _found_all(lowered, "mysql")]
        found = []
        for at, tried in places:
            for name, pattern in tried:
                match = pattern.match(text, at)
                if match is None:
                    continue
                start, end = match.span(match.re.groups)
                secret = text[start:end]
                if _plain_value(secret) and not self._allowed(secret):
                    found.append((start, end, name))
        return found

    def _user_rules(self) -> list[tuple[str, Any]]:
        if self._user is None:
            import re

            self._user = [(name, re.compile(p)) for name, p in self.patterns]
        return self._user

    def _user_spans(self, text: str, rules: list[tuple[str, Any]]) -> list[tuple[int, int, str]]:
        found = []
        for name, pattern in rules:
            for match in pattern.finditer(text):
                start, end = _secret_span(match, 0)
                secret = text[start:end]
                if start == end or secret.startswith(MARK) or self._allowed(secret):
                    continue  # a marker scrubbed before is kept as it is
                if _globally_allowed(secret):
                    continue
                if name == "url-password" and secret.lower().strip("<>") in PLACEHOLDER:
                    continue
                found.append((start, end, name))
        return found

    def _allowed(self, secret: str) -> bool:
        if not self.allow:
            return False
        if self._allow is None:
            import re

            self._allow = [re.compile(p) for p in self.allow]
        return any(p.search(secret) for p in self._allow)

    def _kept(
        self,
        secret: str,
        whole: str,
        line: str,
        name: str,
        floor: float,
        allows: tuple[Allow, ...],
    ) -> bool:
        """Whether a match is let through: gitleaks' entropy floor, its rule and global
        allow-lists and stop words, and the user's allow-list. Every stop word is tried
        before any pattern: the answer is the same, and a word costs no compile."""
        if not secret or secret.startswith(MARK) or (floor and entropy(secret) <= floor):
            return True
        if name.startswith("generic") and not any(c.isdigit() for c in secret):
            return _reads_as_words(secret)  # as gitleaks, but a random run of letters
        lowered = secret.lower()
        words = [w for _, _, stop in allows for w in stop]
        if (words and _stop_word_starts_a_word(secret, lowered, words)) or _stopped(lowered):
            return True
        for target, patterns, _ in allows:
            subject = {"match": whole, "line": line}.get(target, secret)
            if any(_searched(p, subject) for p in patterns):
                return True
        return _allowed_by_pattern(secret) or self._allowed(secret)

    def redact(self, text: str, within: frozenset[str] | None = None) -> tuple[str, dict[str, int]]:
        """``text`` with each secret replaced by ``[REDACTED:<rule>]``; how many per rule
        (``within``: ``_wanted``)."""
        spans = sorted(self.spans(text, within))
        if not spans:
            return text, {}
        counts: dict[str, int] = {}
        pieces, at = [], 0
        for start, end, name in spans:
            if start < at:  # inside one already replaced
                continue
            pieces.append(text[at:start])
            pieces.append(f"{MARK}{name}]")
            counts[name] = counts.get(name, 0) + 1
            at = end
        pieces.append(text[at:])
        return "".join(pieces), counts


def _secret_span(match: Any, group: int) -> tuple[int, int]:
    """The secret's place: the rule's group, else the first group that matched, else all."""
    span: tuple[int, int]
    if group:
        span = match.span(group)
        return span
    for index in range(1, (match.re.groups or 0) + 1):
        if match.group(index):
            span = match.span(index)
            return span
    span = match.span()
    return span


def _walk_back(text: str, start: int, lead: int) -> int:
    """Where ``[\\w.-]{0,lead}`` before ``start`` begins (the name gitleaks' match holds)."""
    at = start
    while at > start - lead and at > 0 and (text[at - 1].isalnum() or text[at - 1] in "_.-"):
        at -= 1
    return at


# Every allow pattern compiled so far (gitleaks' global and rules' lists), by its text.
_PATTERNS: dict[str, Any] = {}
# What a pattern's leading literal is, by its text (_leading_literal).
_LITERALS: dict[str, tuple[bool, str]] = {}
# The characters that stand for syntax in a pattern unless escaped.
_SYNTAX = frozenset("\\^$.|?*+()[]{}")


def _searched(pattern: str, subject: str) -> bool:
    """``re.search(pattern, subject)``, the pattern compiled only when ``subject`` could
    hold a match: it holds the characters every match begins with (_leading_literal) and
    what needs.py says every match holds (so a prompt holding a token pays for the
    patterns it could match, not every allow-list)."""
    anchored, literal = _LITERALS.get(pattern) or _LITERALS.setdefault(
        pattern, _leading_literal(pattern)
    )
    if literal and not (subject.startswith(literal) if anchored else literal in subject):
        return False
    if subject.isascii():
        from vybe.privacy.needs import NEEDS

        need = NEEDS.get(pattern)
        if need is not None and not need(subject.lower()):
            return False
    compiled = _PATTERNS.get(pattern)
    if compiled is None:
        import re

        compiled = _PATTERNS[pattern] = re.compile(pattern)
    return compiled.search(subject) is not None


def _leading_literal(pattern: str) -> tuple[bool, str]:
    """Whether ``pattern`` matches only at a text's start (``^``, no flags before it), and
    the characters every match begins with: its plain and escaped punctuation characters
    (and a ``{`` that opens no repeat) up to its first syntax, less the last one where a
    quantifier follows it; none where a ``|`` outside every group offers another start."""
    anchored = pattern.startswith("^")
    at = 1 if anchored else 0
    literal: list[str] = []
    while at < len(pattern):
        char, after = pattern[at], pattern[at + 1 : at + 2]
        if char == "\\" and after.isascii() and after and not after.isalnum():
            literal.append(after)  # an escaped punctuation character: itself
            at += 2
        elif char in _SYNTAX and (char != "{" or _repeat_at(pattern, at)):
            break
        else:
            literal.append(char)
            at += 1
    if pattern[at : at + 1] in ("?", "*", "+") or _repeat_at(pattern, at):
        literal = literal[:-1]  # that character may be missing or repeated
    if literal and _alternates_at_top(pattern):
        return anchored, ""
    return anchored, "".join(literal)


def _repeat_at(pattern: str, at: int) -> bool:
    """Whether a ``{m,n}`` repeat stands at ``at`` (``{`` before anything else is itself,
    as in ``^\\${VAR}``): digits and at most one comma, then ``}``."""
    close = pattern.find("}", at)
    inside = pattern[at + 1 : close]
    return (
        pattern[at : at + 1] == "{"
        and close != -1
        and inside.count(",") <= 1
        and inside != ""
        and all(c in "0123456789," for c in inside)
    )


def _alternates_at_top(pattern: str) -> bool:
    """Whether ``pattern`` has a ``|`` outside every group and character class."""
    depth, escaped, in_class = 0, False, False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == "|" and depth == 0:
            return True
    return False


# A word of a value: a run of lower case after one capital, or of capitals, and its digits.
WORD = r"(?:[A-Z]?[a-z]+|[A-Z]+(?![a-z]))[0-9]*"


def _reads_as_words(secret: str) -> bool:
    """Whether a value without a digit is made of words (``getTokenFromStorage``,
    ``AUTH_TOKEN_VALUE``), which gitleaks lets through as names, rather than random letters
    (``rkWXDZyJjqxwZProCcSG``: ``rk``, ``WXD``, ``Zy``, ``Jjqxw``, ``Z``, ``Pro``…): at most
    one of its words shorter than three letters."""
    import re

    return sum(1 for w in re.findall(WORD, secret) if len(w) < 3) <= 1


def _credential_assigned(text: str, lowered: str) -> bool:
    """Whether a credential's word in ``lowered`` is followed, within a name's reach, by an
    assignment (or mysql by a -p): what every text vybe's assignment rules match has, found
    with string methods so that an ordinary text compiles none; a long one goes to the
    rules, which look faster than a loop in Python would."""
    if "mysql" in lowered and " -p" in text:
        return True
    if len(text) > PRECHECKED:
        return any(word in lowered for word in CREDENTIAL_WORDS)
    for at in _credential_words(lowered):
        while at < len(text) and (text[at].isalnum() or text[at] in "_.-"):
            at += 1  # past the word and the rest of its name
        rest = text[at : at + 5].lstrip("\"'").lstrip(" \t")
        if rest[:1] in ("=", ":"):
            return True
    return False


def _credential_words(lowered: str) -> list[int]:
    """Where a credential's word begins in ``lowered``: every pass, pwd, secret, token and
    credential, and a key after one of KEY_OWNERS (api_key, SECRET-KEY, privatekey)."""
    return [
        at
        for word in CREDENTIAL_WORDS
        for at in _found_all(lowered, word)
        if word != "key" or lowered[max(0, at - 12) : at].rstrip("_-").endswith(KEY_OWNERS)
    ]


def _found_all(lowered: str, word: str) -> list[int]:
    """Every place ``word`` begins in ``lowered``."""
    found, at = [], lowered.find(word)
    while at != -1:
        found.append(at)
        at = lowered.find(word, at + 1)
    return found


def _plain_value(secret: str) -> bool:
    """Whether an assigned value reads as a credential: a digit or a symbol in it, not one
    kind of character alone, random enough (entropy above 3), and no placeholder or
    reference (``${VAR}``, ``<password>``, ``***``, a redaction marker)."""
    if secret.startswith(MARK) or secret.lower().strip("<>") in PLACEHOLDER:
        return False
    if any(part in secret for part in ("${", "$(", "{{", "***", "xxx", "XXX")):
        return False
    name = secret.partition("(")[0]  # a call's name: os.environ.get(
    if all(part.isidentifier() for part in name.split(".")) and ("." in name or "(" in secret):
        return False  # a dotted name or a call (process.env.API_KEY, getenv(): code, no value
    symbols = any(not c.isalnum() for c in secret)
    if not (symbols or any(c.isdigit() for c in secret)) or secret.isdigit():
        return False
    return entropy(secret) > 3.0


def _stop_word_starts_a_word(secret: str, lowered: str, words: list[str]) -> bool:
    """Whether one of a rule's stop words begins a word of ``secret`` and fits in it: the
    ``process`` of ``process.env.KEY`` or ``getProcessToken``, not the ``proc`` that chance
    puts inside a random value (``…xwZProCc…``, whose words are ``xw``, ``Z``, ``Pro``,
    ``Cc``), which gitleaks' substring test lets through in one random value of 30 to 90.
    A word: a run of lower-case letters, with one capital before it or none, or a run of
    capitals; the stop word's letters fit in it, and what follows them in the stop word
    (``act-``, ``add.``) follows the word in ``secret``."""
    import re

    for found in re.finditer(WORD, secret):
        start, end = found.span()
        for word in words:
            letters = word.rstrip("-._")
            if (
                letters
                and end - start >= len(letters)
                and lowered.startswith(word, start)
                and (len(letters) == len(word) or start + len(letters) == end)
            ):
                return True
    return False


def _globally_allowed(secret: str) -> bool:
    """Whether gitleaks' global allow-list lets ``secret`` through."""
    return _stopped(secret.lower()) or _allowed_by_pattern(secret)


def _stopped(lowered: str) -> bool:
    from vybe.privacy.rules import STOPWORDS

    return any(w in lowered for w in STOPWORDS)


def _allowed_by_pattern(secret: str) -> bool:
    from vybe.privacy.rules import ALLOW

    return any(_searched(p, secret) for p in ALLOW)


def _gate_open(index: int, text: str) -> bool:
    """Whether rule ``index`` of gitleaks' may match ``text``: a word as long as its
    shortest secret (SHORTEST), else no gate or its gate matches."""
    from vybe.privacy.rules import RULES

    name = RULES[index][0]
    shortest = SHORTEST.get(name)
    if shortest is not None:
        return len(text) > PRECHECKED or any(len(word) >= shortest for word in text.split())
    gate = GATES.get(name)
    if gate is None:
        return True
    if len(text) <= PRECHECKED:
        lowered = text.lower()
        if len(lowered) == len(text):  # each character lowered in its place
            return _assigned(text, lowered)
    import re

    return re.search(gate, text, re.ASCII) is not None


def _assigned(text: str, lowered: str) -> bool:
    """Whether ``text`` has what every text the generic gate matches has: one of
    GATE_WORDS in ``lowered`` (``text`` lowered, character for character), at most 23 of
    NAMED, a separator, up to five of SKIPPED, then ten characters of VALUE."""
    for word in GATE_WORDS:
        start = lowered.find(word)
        while start != -1:
            end = start + len(word)
            for at in range(end, min(end + 24, len(text))):
                if text[at] in SEPARATORS:
                    after = at + 2 if text.startswith("||", at) else at + 1
                    if _value_at(text, after):
                        return True
                if text[at] not in NAMED:
                    break
            start = lowered.find(word, start + 1)
    return False


def _value_at(text: str, start: int) -> bool:
    """Whether up to five of SKIPPED from ``start`` are followed by ten of VALUE."""
    for skip in range(6):
        run = text[start + skip : start + skip + 10]
        if len(run) == 10 and all(c in VALUE for c in run):
            return True
        if start + skip >= len(text) or text[start + skip] not in SKIPPED:
            return False
    return False


def _compiled(rule: tuple[str, str]) -> tuple[str, Any]:
    """One of vybe's own rules, compiled (re caches it)."""
    import re

    return rule[0], re.compile(rule[1])


# The redactor of the config in force, rebuilt when the file changes: (stamp, redactor or
# None where privacy.redact is off).
_CURRENT: list[Any] = []
_RULED: list[dict[str, tuple[int, ...]]] = []  # each keyword's rules, built once


def _rules_of() -> dict[str, tuple[int, ...]]:
    """The rules (their places in RULES) each keyword belongs to."""
    if not _RULED:
        from vybe.privacy.rules import RULES

        ruled: dict[str, list[int]] = {}
        for place, rule in enumerate(RULES):
            for keyword in rule[1]:
                ruled.setdefault(keyword, []).append(place)
        _RULED.append({k: tuple(v) for k, v in ruled.items()})
    return _RULED[0]


def current() -> Redactor | None:
    """The redactor config.yaml asks for (None: redaction off), read through the settings'
    cache (``config.read_settings``): a stat while the file is unchanged."""
    from vybe import config

    found = next((p for p in config.config_files() if os.path.isfile(p)), None)
    stamp = (found, os.stat(found).st_mtime_ns) if found else None
    if _CURRENT and _CURRENT[0] == stamp:
        cached: Redactor | None = _CURRENT[1]
        return cached
    settings = (config.read_settings(found) if found else {}).get("redaction") or {}
    made = None
    if settings.get("redact", True):
        made = Redactor(settings.get("patterns", []), settings.get("allow", []))
    _CURRENT[:] = [stamp, made]
    return made


def scrub(text: str) -> str:
    """``text`` as the store may keep it: private spans out, secrets redacted."""
    return _scrubbed(text, current())


# The last text scrubbed, the redactor it was scrubbed with, and what it became, as one
# tuple (read and replaced whole: `vybe proxy` scrubs in many threads): a prompt's hook
# scrubs the same words for the message row, the row it hands back and the event.
_LAST: list[tuple[str, Any, str]] = [("", None, "")]


def _scrubbed(text: str, redactor: Redactor | None, within: frozenset[str] | None = None) -> str:
    """``within``: the keywords of a JSON document (Python's encoding) that holds ``text``
    as a string: an ASCII string is written there as it is but for its quotes, backslashes
    and control characters, which no keyword holds, so its keywords are among them (not so
    where private spans came out, joining what was apart)."""
    last_text, last_redactor, last_kept = _LAST[0]
    if last_redactor is redactor and last_text == text:
        return last_kept
    stripped = strip_private(text)
    if redactor is None:
        kept = stripped
    else:
        same = within is not None and stripped == text and text.isascii()
        kept = redactor.redact(stripped, within if same else None)[0]
    _LAST[0] = (text, redactor, kept)
    return kept


def scrub_named(name: str, value: str) -> str:
    """``value`` as the store may keep it when ``name`` names it (a memory's key): scrubbed,
    and its secrets redacted as in the assignment ``name=value``, since a name alone can be
    what makes a value a credential (``DEPLOY_TOKEN`` and a random value). ``name`` is
    taken as already scrubbed."""
    return _named(name, value, current())


def _named(
    name: str, value: str, redactor: Redactor | None, within: frozenset[str] | None = None
) -> str:
    """``value`` scrubbed, then redacted as ``name="value"`` where ``name`` holds one of the
    words that make an assignment a credential (GATE_WORDS, CREDENTIAL_WORDS): a JSON
    object's ``"DB_PASSWORD": "…"`` as much as a memory's key."""
    kept = _scrubbed(value, redactor, within)
    lowered = name.lower()
    if redactor is None or not any(w in lowered for w in (*GATE_WORDS, *CREDENTIAL_WORDS)):
        return kept
    named = f'{name}="'
    joined, counts = redactor.redact(f'{named}{kept}"')
    whole = counts and joined.startswith(named) and joined.endswith('"')
    return joined[len(named) : -1] if whole else kept


def scrub_json(document: str | None) -> str | None:
    """A JSON document with every string in it scrubbed (keys too); unchanged when no
    keyword, URL or private tag is in its text at all."""
    if document is None or not _may_hold(document):
        return document
    from vybe import jsonio

    try:
        value = jsonio.loads(document)
    except ValueError:
        return scrub(document)
    from vybe.privacy.keywords import KEYWORDS

    lowered = document.lower()  # each string's keywords looked for among the document's
    within = frozenset(k for k in KEYWORDS if k in lowered)
    return jsonio.dumps(_scrubbed_value(value, current(), within))


def scrub_value(value: Any) -> Any:
    """A decoded JSON value with every string in it scrubbed; the config is looked up once
    for the whole value, not once per string (a stat each)."""
    return _scrubbed_value(value, current())


def _scrubbed_value(
    value: Any, redactor: Redactor | None, within: frozenset[str] | None = None
) -> Any:
    if isinstance(value, str):
        return _scrubbed(value, redactor, within)
    if isinstance(value, list):
        return [_scrubbed_value(v, redactor, within) for v in value]
    if isinstance(value, dict):
        kept = {}
        for k, v in value.items():
            key = _scrubbed(k, redactor, within)
            if isinstance(v, str):
                kept[key] = _named(key, v, redactor, within)
            else:
                kept[key] = _scrubbed_value(v, redactor, within)
        return kept
    return value


def _may_hold(text: str) -> bool:
    """Whether scrubbing could change ``text``: a private tag (either), a URL with a user,
    any rule's keyword or credential's word (or user patterns, which have none)."""
    lowered = text.lower()
    if "private>" in lowered or all(w in text for w in URL_WORDS):
        return True
    redactor = current()
    if redactor is None:
        return False
    if redactor.patterns:
        return True
    from vybe.privacy.keywords import KEYWORDS

    return any(k in lowered for k in KEYWORDS) or any(w in lowered for w in CREDENTIAL_WORDS)
