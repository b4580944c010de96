"""MIND checks: headings, Mission entries word for word, template reset, limits, fallbacks."""

from vybe.context import mind
from vybe.context.budget import ModelLimits, compute

BUDGET = compute(ModelLimits(window=200_000))


def a_mind(**bodies: str) -> str:
    names = {
        "whom": "## For whom and why",
        "agreements": "## Agreements",
        "mission": "## Mission",
        "workstreams": "## Workstreams",
        "decisions": "# 3. Key decisions",
        "lessons": "# 4. Lessons",
    }
    return mind.render({names[k]: v.splitlines() for k, v in bodies.items()})


PREVIOUS = a_mind(
    whom="For Dana, who runs the release.",
    mission="- Migrate every service to Postgres 16\n- Keep the public API stable",
    lessons="Run the slow tests before merging.",
)


def test_first_template_has_no_problems():
    assert mind.review(mind.template(), "", BUDGET) == []


def test_revision_that_marks_status_is_accepted():
    revised = PREVIOUS.replace(
        "- Keep the public API stable", "- Keep the public API stable (status: done)"
    )
    assert mind.review(revised, PREVIOUS, BUDGET) == []


def test_missing_heading_is_a_structure_problem():
    problems = mind.review(PREVIOUS.replace("## Agreements\n", ""), PREVIOUS, BUDGET)
    assert any('"## Agreements" is missing' in p for p in problems)


def test_duplicated_heading_is_a_structure_problem():
    problems = mind.review(PREVIOUS + "# 4. Lessons\n", PREVIOUS, BUDGET)
    assert any("appears 2 times" in p for p in problems)


def test_headings_out_of_order_are_a_structure_problem():
    swapped = PREVIOUS.replace("# 3. Key decisions", "@@").replace(
        "# 4. Lessons", "# 3. Key decisions"
    )
    problems = mind.review(swapped.replace("@@", "# 4. Lessons"), PREVIOUS, BUDGET)
    assert any("out of order" in p for p in problems)


def test_deleted_mission_entry_is_a_problem():
    problems = mind.review(PREVIOUS.replace("- Keep the public API stable\n", ""), PREVIOUS, BUDGET)
    assert any("Keep the public API stable" in p for p in problems)


def test_reworded_mission_entry_is_a_problem_even_when_the_count_holds():
    revised = PREVIOUS.replace("Keep the public API stable", "Keep the API stable")
    problems = mind.review(revised, PREVIOUS, BUDGET)
    assert any(
        '"- Keep the public API stable"' in p or "Keep the public API stable" in p for p in problems
    )


def test_mission_prose_is_a_problem():
    revised = PREVIOUS.replace("- Keep the public API stable", "We also keep the API stable.")
    problems = mind.review(revised, PREVIOUS, BUDGET)
    assert any("not an entry" in p for p in problems)


def test_reset_to_template_over_a_real_mind_is_a_problem():
    problems = mind.review(mind.template(), PREVIOUS, BUDGET)
    assert any("reset to the empty template" in p for p in problems)


def test_over_limit_section_is_a_problem_naming_it():
    long = a_mind(mission="- m", lessons="x" * 8_000)
    problems = mind.review(long, "", BUDGET)
    assert any("Lessons is about" in p and "at most 1500" in p for p in problems)


def test_limits_scale_with_small_windows():
    small = compute(ModelLimits(window=32_000))
    problems = mind.review(a_mind(lessons="x" * 1_200), "", small)
    assert any("Lessons" in p and "at most 250" in p for p in problems)


def test_settle_keeps_previous_mind_on_template_reset():
    assert mind.settle(mind.template(), PREVIOUS, BUDGET).mind == PREVIOUS


def test_settle_keeps_no_mind_when_template_stays_empty():
    assert mind.settle(mind.template(), "", BUDGET).mind == ""


def test_settle_keeps_previous_when_mind_grows_past_twice_its_limits():
    huge = a_mind(mission="- m", whom="x" * 60_000)
    settled = mind.settle(huge, PREVIOUS, BUDGET)
    assert settled.mind == PREVIOUS and settled.fallback == "mind_too_large_kept_previous"


def test_settle_salvages_good_sections_and_restores_lost_missions():
    revised = PREVIOUS.replace("- Keep the public API stable\n", "").replace(
        "Run the slow tests before merging.", "Run the slow tests first; they catch migrations."
    )
    settled = mind.settle(revised.replace("## Agreements\n", ""), PREVIOUS, BUDGET)
    assert settled.fallback == "mind_salvaged"
    parsed = mind.parse(settled.mind)
    assert parsed.problems == []
    assert set(mind.mission_entries(parsed)) == {
        "- Keep the public API stable",
        "- Migrate every service to Postgres 16",
    }
    assert "they catch migrations" in settled.mind


def test_settle_accepts_over_limit_mind_whole():
    long = a_mind(mission="- m", lessons="y" * 8_000)
    settled = mind.settle(long, "", BUDGET)
    assert settled.mind == long and settled.fallback == "mind_over_limit_shown_cut"


def test_shown_mind_cuts_over_limit_section_keeps_headings_and_points_to_record():
    long = a_mind(mission="- m", lessons="\n".join(["lesson " + "z" * 90] * 100))
    text, cut = mind.shown(long, BUDGET, "checkpoint 7")
    assert cut
    assert "[This section continues; the whole mind is in the record: checkpoint 7]" in text
    assert mind.estimate(text) < mind.estimate(long)
    assert all(h in text.splitlines() for h in mind.HEADINGS)


def test_seed_gives_placeholders_back_to_empty_sections():
    seeded = mind.seed(PREVIOUS)
    assert "(none yet: key decisions)" in seeded
    assert mind.parse(seeded).problems == []


RENAMED = """# Where I stand
### For whom & why
For Dana, who runs the release.
## Ownership
## Our agreements:
# 4) Lessons learned
Run the slow tests before merging.
# Goals
## Missions
- Migrate every service to Postgres 16 (status: in progress)
- Keep the public API stable
## Work streams
- svc3 next
# Decisions
"""


def test_renamed_and_reordered_headings_are_named_in_the_repair():
    problems = mind.review(RENAMED, PREVIOUS, BUDGET)
    assert len(problems) == 1 and "the headings were renamed or moved" in problems[0]


def test_settle_puts_renamed_and_reordered_headings_back():
    settled = mind.settle(RENAMED, PREVIOUS, BUDGET)
    parsed = mind.parse(settled.mind)
    assert settled.fallback == "mind_headings_restored" and parsed.problems == []
    assert "Run the slow tests before merging." in parsed.bodies["# 4. Lessons"]
    assert "- svc3 next" in parsed.bodies["## Workstreams"]
    assert mind.lost_missions(PREVIOUS, parsed) == []


def test_settle_keeps_previous_when_the_structure_cannot_be_recognised():
    prose = "I think the mission is to migrate every service.\n# Notes\nNothing else."
    assert mind.restore(prose) is None
    assert mind.settle(prose, PREVIOUS, BUDGET).mind == PREVIOUS


def test_a_mind_with_no_heading_at_all_is_a_problem_not_a_crash():
    parsed = mind.parse("just words\nand more")
    assert parsed.bodies == {} and len(parsed.problems) == len(mind.HEADINGS)
