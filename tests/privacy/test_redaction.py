"""The redactor and the private spans, on their own: every planted shape found, the words
around it kept, nothing found in ordinary code, paths, hashes and ids."""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path

import pytest

from tests.privacy.planted import needles, planted
from vybe import jsonio
from vybe.privacy import PRIVATE_MARKER, Redactor, scrub, scrub_json, scrub_value, strip_private
from vybe.privacy.keywords import KEYWORDS

ROOT = Path(__file__).parents[2]


@pytest.mark.parametrize(("shape", "secret", "line"), planted(), ids=lambda v: str(v)[:24])
def test_every_planted_shape_is_redacted_and_the_words_around_it_kept(shape, secret, line):
    redacted, counts = Redactor().redact(f"before {line} after")
    assert not [n for n in needles(secret) if n in redacted], shape
    assert redacted.startswith("before ") and redacted.endswith(" after")
    assert sum(counts.values()) >= 1 and "[REDACTED:" in redacted


def test_a_key_inside_a_json_string_is_redacted_and_the_json_stays_json():
    _, secret, _ = next(p for p in planted() if p[0] == "gcp-service-account")
    account = {"type": "service_account", "private_key": secret, "client_email": "a@b.iam"}
    stored = scrub_json(json.dumps({"tool_output": json.dumps(account)}))
    assert stored is not None
    assert not [n for n in needles(secret) if n in stored]
    assert json.loads(json.loads(stored)["tool_output"])["client_email"] == "a@b.iam"


def test_a_span_across_a_messages_blocks_leaves_no_word_in_either():
    blocks = [{"type": "text", "text": "<private>my part one"}, {"type": "text", "text": ""}]
    blocks[1]["text"] = "my part two</private> and the public rest"
    stored = scrub_json(json.dumps({"content": blocks}))
    assert stored is not None and "my part" not in stored
    assert [b["text"] for b in json.loads(stored)["content"]] == [
        PRIVATE_MARKER,
        " and the public rest",
    ]


def test_a_key_cut_before_its_end_line_is_redacted_to_the_end_of_its_body():
    _, secret, _ = next(p for p in planted() if p[0] == "pem")
    cut = secret[: len(secret) // 2] + "… [300 more characters]"
    redacted, _ = Redactor().redact(cut)
    assert not [n for n in needles(secret) if n in redacted and n in cut]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("a <private>secret plan</private> b", "a  b"),
        ("<PRIVATE>x</Private> y", " y"),
        ("a <private>one</private> b <private>two</private> c", "a  b  c"),
        ("before <private>never closed, all of this", "before "),
        ("<private>all of it</private>", PRIVATE_MARKER),
        ("<private>unclosed from the start", PRIVATE_MARKER),
        ("begun in an earlier block</private> then public", " then public"),
        ("a <private>b</private> c </PRIVATE> d", "a  d"),
        ("<private reason='x'>not a tag, so the close is stray</private> ok", " ok"),
        ("no tags at all", "no tags at all"),
    ],
)
def test_private_spans_are_removed_and_a_tag_without_its_pair_fails_closed(text, kept):
    assert strip_private(text) == kept


@pytest.mark.parametrize(
    "text",
    [
        "postgres://app:${DB_PASSWORD}@db/app",
        "https://user:***@example.com",
        "git@github.com:gitleaks/gitleaks.git",
        "https://example.com/path?a=1&b=2",
        "api_key = os.environ['API_KEY']",
        "token_count = 128000",
        "PASSWORD=",
        "password: <password>",
    ],
)
def test_placeholders_and_references_are_not_secrets(text):
    assert Redactor().redact(text) == (text, {})


def ordinary_corpus() -> list[str]:
    """Ordinary text a session shows: hashes, ids, SHAs, paths, numbers, code."""
    items = []
    for n in range(200):
        digest = hashlib.sha256(str(n).encode()).hexdigest()
        items += [
            f"commit {digest[:40]}",
            f"sha256: {digest}",
            f"id = {uuid.UUID(int=n * 7919 + 1)}",
            f"/home/user/projects/app/src/module_{n}/file_{digest[:8]}.py:{n}",
            f"task_{1700000000000000000 + n}_{digest[:8]}",
            f"cache_key = 'user:{n}:profile'",
            f"key={digest[:12]}",
        ]
    return items


def test_no_false_positive_on_ordinary_code_paths_hashes_and_ids():
    found = [text for text in ordinary_corpus() if Redactor().redact(text)[1]]
    assert found == []


def test_no_false_positive_on_this_repositorys_own_source_and_docs():
    """The rate is 0 of about 1.2 MB (src and docs, the rules' own files aside)."""
    paths = [
        p
        for p in [*(ROOT / "src").rglob("*.py"), *(ROOT / "docs").rglob("*.md")]
        if "privacy" not in p.relative_to(ROOT).parts
    ]
    assert len(paths) > 150  # the checkout's own folder may be named privacy too
    redactor = Redactor()
    found = {str(p): redactor.redact(p.read_text())[1] for p in paths}
    assert {p: c for p, c in found.items() if c} == {}


@pytest.mark.parametrize(
    "text",
    [
        "add a test for the login flow and keep the api stable",
        "the token expires after an hour, refresh it on a 401",
        "password reset: send the link by mail",
    ],
)
def test_ordinary_words_with_a_rules_keyword_compile_no_rule(text):
    """The generic rule's gate spares a prompt naming an api, a token or a password the
    rule's compile, and re's import (the hook's budget)."""
    redactor = Redactor()
    assert redactor.redact(text) == (text, {})
    assert redactor._compiled == {}


def test_the_gates_str_precheck_lets_through_every_text_the_gate_matches():
    """The precheck may only close the gate on a text the gate would not match (else a
    secret would be kept): random texts of the gate's own characters (its keywords in
    either case, its separators and value; characters that lower to more than one or to
    an ASCII letter), and the planted lines, each matched by both or refused by the
    precheck alone."""
    import random
    import re

    from vybe.privacy import GATES, _gate_open
    from vybe.privacy.rules import RULES

    generic = next(i for i, rule in enumerate(RULES) if rule[0] == "generic-api-key")
    gate = re.compile(GATES["generic-api-key"], re.ASCII)
    rng = random.Random(37)
    pieces = ["key", "token", "api", "=", ":", ",", "|", ">", "'", '"', "`", " ", "\t", "\n"]
    pieces += ["x1", "_", ".", "+", "/", "-", "aZ9", "AKIA0", "==", "Secret", "PASSWORD"]
    pieces += ["passwd", "Auth", "creds", "ACCESS", "credential", "\u0130", "\u212a", "\u00e9"]
    texts = ["".join(rng.choices(pieces, k=rng.randint(3, 30))) for _ in range(20000)]
    texts += [line for _, _, line in planted()] + ordinary_corpus()
    # the longest name between a keyword and its separator, and one longer
    texts += [f"my Api{'_' * n}{q}|| `abcdefghi9" for n in range(22) for q in ("", " '\t")]
    matched = [t for t in texts if gate.search(t)]
    assert len(matched) > 1000
    assert [t for t in matched if not _gate_open(generic, t)] == []


def _group_width(pattern: str, group: int) -> int:
    """The fewest characters group ``group`` (0: the whole match) of ``pattern`` matches."""
    from re import _constants as sre
    from re import _parser

    tree = _parser.parse(pattern)
    if not group:
        return tree.getwidth()[0]
    found = []

    def walk(items) -> None:
        for op, arg in items:
            if op is sre.SUBPATTERN:
                if arg[0] == group:
                    found.append(arg[3].getwidth()[0])
                walk(arg[3])
            elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
                walk(arg[2])
            elif op is sre.BRANCH:
                for branch in arg[1]:
                    walk(branch)

    walk(tree)
    return found[0]


def test_a_rules_shortest_secret_is_no_longer_than_its_pattern_allows():
    """SHORTEST may only spare a text no secret of the rule fits in (the secret's place is
    its rule's group, else the first group, else the whole match: _secret_span)."""
    from vybe.privacy import SHORTEST
    from vybe.privacy.rules import RULES

    widths = {}
    for name, _, pattern, _, group, _, _ in RULES:
        if name in SHORTEST:
            import re

            first = group or (1 if re.compile(pattern).groups else 0)
            widths[name] = _group_width(pattern, first)
    assert set(widths) == set(SHORTEST)
    assert {n: w for n, w in widths.items() if SHORTEST[n] > w} == {}


@pytest.mark.parametrize(("shape", "secret", "line"), planted())
def test_a_json_document_is_scrubbed_as_each_of_its_strings_is_alone(shape, secret, line):
    """scrub_json looks for each string's keywords among the document's only: the same
    redactions as every string scrubbed alone, in keys, nested values, upper case, beside
    non-ASCII text, and where a private span came out between a keyword's halves."""
    word = max((k for k in KEYWORDS if k in line.lower()), key=len, default=line[:2].lower())
    cut = line.lower().index(word) + 1  # a keyword only its string holds, once joined
    apart = f"{line[:cut]}<private>x</private>{line[cut:]}"
    value = {
        line: [line.upper(), {"note": f"é {line}", "tool": {"api": "chat"}}],
        "apart": apart,
        "text": f"see: {line}\n\tdone",
    }
    document = jsonio.dumps(value, ensure_ascii=False)
    assert scrub_json(document) == jsonio.dumps(scrub_value(value))
    assert scrub_json(json.dumps(value)) == jsonio.dumps(scrub_value(value))
    assert all(n not in scrub_json(document) for n in needles(secret)), shape
    assert json.loads(scrub_json(document))["apart"] == scrub(apart)
    alone = {"said": apart}
    assert scrub_json(jsonio.dumps(alone)) == jsonio.dumps(scrub_value(alone))
