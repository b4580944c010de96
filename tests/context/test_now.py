"""NOW: exactly one block, long enough; exact references checked against the record."""

import pytest

from vybe.context import now

BODY = "# 6. Now\n## Current step\n" + "Reviewing the queue of pull requests, oldest first. " * 4


def test_one_block_is_extracted_trimmed():
    got = now.extract(f"thinking\n<checkpoint>\n{BODY}\n</checkpoint>\ntrailing", 32)
    assert got.now == BODY.strip() and got.problems == ()


def test_no_block_is_a_problem():
    assert "no <checkpoint> block" in now.extract(BODY, 32).problems[0]


def test_two_blocks_are_a_problem():
    text = f"<checkpoint>\n{BODY}\n</checkpoint>\n<checkpoint>\n{BODY}\n</checkpoint>"
    assert "exactly one block" in now.extract(text, 32).problems[0]


def test_a_mention_of_the_tag_is_a_problem():
    text = f"<checkpoint>\n{BODY} and </checkpoint> here\n</checkpoint>"
    assert now.extract(text, 32).now is None


def test_unclosed_block_is_a_problem():
    assert "not closed" in now.extract(f"<checkpoint>\n{BODY}", 32).problems[0]


def test_attribute_makes_the_tag_malformed():
    assert now.extract(f'<checkpoint id="1">\n{BODY}\n</checkpoint>', 32).now is None


def test_empty_block_is_a_problem():
    assert "empty" in now.extract("<checkpoint>\n\n</checkpoint>", 32).problems[0]


def test_short_now_is_a_problem_with_figures():
    problem = now.extract("<checkpoint>\nshort\n</checkpoint>", 32).problems[0]
    assert "too short" in problem and "32" in problem


def test_silent_notes_are_ignored():
    text = f"<silent>a <checkpoint> mention</silent><checkpoint>\n{BODY}\n</checkpoint>"
    assert now.extract(text, 32).now == BODY.strip()


def test_references_are_read_from_the_exact_references_section():
    text = (
        "# 6. Now\n## Current step\nsee src/ignored.py\n## Exact references\n"
        "- `pytest -q tests/api` failed\n- src/vybe/api.py, task_1712_ab3f and https://x.io/a\n"
        "- plain words only\n## Pitfalls\n- other/path.py"
    )
    assert now.references(text) == [
        "pytest -q tests/api",
        "src/vybe/api.py",
        "task_1712_ab3f",
        "https://x.io/a",
    ]


def test_references_absent_from_the_record_are_flagged():
    text = "## Exact references\n- src/real.py\n- src/invented.py"
    assert now.flag_references(text, lambda ref: ref == "src/real.py") == ["src/invented.py"]


def test_missing_now_headings_are_listed():
    assert now.missing_headings("# 6. Now\n## Current step") == list(now.HEADINGS[2:])


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ("a <silent>x</silent> b", "a  b"),
        ("<SILENT>note</Silent>after", "after"),
        ("<silent>uses `code` inside</silent> ok", " ok"),
        ("quoted `<silent>x</silent>` here", "quoted `<silent>x</silent>` here"),
        (
            "```\n<silent>in a fence</silent>\n```\nb <silent>y</silent>",
            "```\n<silent>in a fence</silent>\n```\nb ",
        ),
        ("``` unclosed\n<silent>to the end</silent>", "``` unclosed\n<silent>to the end</silent>"),
    ],
)
def test_a_silent_note_is_left_out_unless_it_is_quoted_as_code(reply, kept):
    assert now.without_silent(reply) == kept
