"""vybe's pure checkpoint rules held against the reference implementation (avibe-os 3.2.2).

Run by ``make test-reference`` in its own virtualenv (differential/requirements.txt), never by
``make test``. Each test generates inputs with hypothesis and asks both implementations; where
vybe decides differently on purpose (docs/checkpoints.md, "Where vybe differs from the
reference"), the inputs of that difference are left out of the comparison and the test says
which.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from core.agent_core.ai.provider import ModelCapabilities
from core.agent_core.harness import context as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from vybe.context import memo, mind, now
from vybe.context.budget import ModelLimits, compute, estimate

WINDOWS = st.integers(1_000, 2_000_000)
EXAMPLES = settings(max_examples=400, deadline=None)


def reference_budget(window: int, limit: int, output: int, steps: tuple[int, ...]):
    endpoint = SimpleNamespace(hosted_tools=())
    request = SimpleNamespace(
        max_tokens=output, system="", messages=(), tools=(), endpoint=endpoint
    )
    capabilities = ModelCapabilities(
        context_window=window, input_limit=limit, context_price_steps=steps
    )
    return ref.budget(request, capabilities, transcript=())


@EXAMPLES
@given(
    window=WINDOWS,
    share=st.floats(0.5, 1.0),
    output=st.integers(1, 64_000),
    steps=st.lists(st.integers(100_000, 2_000_000), max_size=3),
)
def test_margin_threshold_and_keep_are_the_references(window, share, output, steps):
    """Price steps under 100k are left out: vybe lowers the threshold below any step."""
    limit = max(int(window * share), 1)
    output = min(output, window // 4)
    ours = compute(ModelLimits(window, limit, output, tuple(sorted(steps))))
    theirs = reference_budget(window, limit, output, tuple(sorted(steps)))
    assert ours.reply_reserve == theirs.output
    assert (ours.margin, ours.threshold) == (theirs.margin, theirs.threshold)
    assert ours.keep == max(theirs.keep, 0) or ours.threshold < 0


@EXAMPLES
@given(window=st.integers(1, 5_000_000))
def test_the_checkpoint_floor_and_the_scaled_limits_are_the_references(window):
    ours = compute(ModelLimits(window=window))
    assert ours.now_min == ref.checkpoint_floor(window)
    assert tuple(ours.mind_limits.values()) == ref.mind_limits(window)
    assert ours.memo_total == ref.memo_budget(window)


BLOCK_PIECES = st.sampled_from(
    [
        *("<checkpoint>", "</checkpoint>", "< checkpoint >", "</ CHECKPOINT>", "<checkpoint x=1>"),
        *("<checkpointed>", "Here it is: ", "\n", "  ", "\t", "# 6. Now\n", "## Next steps\n"),
        *("- keep going with the billing move\n" * 3, "word " * 40, "é" * 30, "<", ">", "/"),
    ]
)


@settings(max_examples=3_000, deadline=None)
@given(reply=st.lists(BLOCK_PIECES, max_size=12).map("".join), window=st.integers(1_000, 80_000))
def test_a_block_is_usable_exactly_when_the_reference_says_so(reply, window):
    """(Replies with <silent> notes: the test below and docs/checkpoints.md.)"""
    ours = now.extract(reply, compute(ModelLimits(window=window)).now_min)
    text, problem = ref.checkpoint_block(reply, window)
    assert (ours.now is None) == (problem is not None), (ours, problem)
    if ours.now is not None:
        assert ours.now == text


BODY = "# 6. Now\n## Next steps\n" + "- keep going with the billing move\n" * 3


@pytest.mark.parametrize(
    "reply",
    [
        f"<checkpoint>\n{BODY}<silent>thinking</silent>\n</checkpoint>",
        f"<silent>draft <checkpoint>x</checkpoint></silent><checkpoint>\n{BODY}</checkpoint>",
        f"note <silent>uses `code`</silent>\n<checkpoint>\n{BODY}</checkpoint>",
        f"<checkpoint>\n{BODY}\n<silent>\nline\n</silent>\n\n- after\n</checkpoint>",
        f"<checkpoint>\n{BODY}</checkpoint>\n<silent><checkpoint>two</checkpoint></silent>",
    ],
)
def test_silent_notes_outside_code_are_left_out_as_the_reference_leaves_them(reply):
    ours = now.extract(reply, compute(ModelLimits(window=32_000)).now_min)
    text, problem = ref.checkpoint_block(reply, 32_000)
    assert problem is None and ours.now == text


def memo_items(draw_texts: list[str]) -> list[tuple[int, str]]:
    return [(3 * index + 1, text) for index, text in enumerate(draw_texts)]


TEXTS = st.lists(
    st.sampled_from(
        ["Never push to main", "continue", "Please  keep\nbatches small", "x" * 90, "é ok", "a"]
    ),
    min_size=1,
    max_size=6,
)
EDITS = st.lists(
    st.tuples(
        st.integers(0, 5),
        st.sampled_from(["tick", "untick", "reword", "delete", "blank", "trailing", "swap"]),
    ),
    max_size=4,
)


def edited(lines: list[str], edits: list[tuple[int, str]]) -> str:
    out = list(lines)
    for index, kind in edits:
        if not out:
            break
        at = index % len(out)
        line = out[at]
        if kind == "tick":
            out[at] = line.replace("- [ ]", "- [x]", 1)
        elif kind == "untick":
            out[at] = line.replace("- [x]", "- [ ]", 1)
        elif kind == "reword":
            out[at] = line + " (reworded)"
        elif kind == "delete":
            del out[at]
        elif kind == "blank":
            out.insert(at, "")
        elif kind == "trailing":
            out[at] = line + "   "
        elif len(out) > 1:
            out[at], out[at - 1] = out[at - 1], out[at]
    return "\n".join(out) + "\n"


@EXAMPLES
@given(texts=TEXTS, ticked=st.lists(st.booleans(), min_size=6, max_size=6), edits=EDITS)
def test_only_checkboxes_changed_is_decided_as_the_reference_decides(texts, ticked, edits):
    """Each reads back its own memo.md (vybe's previews are longer); ``[X]`` is left out."""
    items = memo_items(texts)
    marks = [memo.MemoMark(seq, ticked[i], ticked[i]) for i, (seq, _) in enumerate(items)]
    ours_file = memo.render_file(marks, dict(items))
    listed = ref.MemoList(
        tuple(ref.MemoItem(seq, text) for seq, text in items),
        frozenset(m.seq for m in marks if m.ticked),
    )
    ours = memo.read_file(ours_file, edited(ours_file.splitlines(), edits))
    theirs = listed.read(edited(listed.lines(), edits))
    assert (ours is None) == (theirs is None)
    if ours is not None:
        assert {m.seq for m in ours if m.checked} == theirs


@EXAMPLES
@given(
    sizes=st.lists(st.integers(1, 200), min_size=1, max_size=12),
    window=st.integers(8_000, 400_000),
)
def test_a_memo_within_its_budget_is_kept_whole_by_both(sizes, window):
    """Over the budget the two shorten differently (docs/checkpoints.md): within it, alike."""
    budget = compute(ModelLimits(window=window))
    texts = [(i + 1, "w" * (4 * size)) for i, size in enumerate(sizes)]
    items = [ref.MemoItem(seq, text) for seq, text in texts]
    theirs = ref.fit_memo(items, budget.memo_total)
    ours, left = memo.fit(texts, 10**9, budget.memo_total)
    if ref.memo_tokens(items) <= budget.memo_total:
        assert theirs == tuple(items)
        assert [k.text for k in ours] == [t for _, t in texts] and not left


def mind_with(entries: list[str]) -> str:
    return mind.template().replace(mind.PLACEHOLDERS[mind.MISSION], "\n".join(entries) or "(x)")


@EXAMPLES
@given(
    before=st.lists(st.sampled_from(["- ship it", "- move billing", "- keep API"]), max_size=4),
    after=st.lists(st.sampled_from(["- ship it", "- move billing", "- keep API"]), max_size=4),
)
def test_a_mission_with_fewer_entries_is_refused_by_both(before, after):
    """The reference counts entries; vybe holds each earlier entry word for word, which
    refuses every mind the count refuses (and a reworded one with as many entries)."""
    previous, revised = mind_with(before), mind_with(after)
    budget = compute(ModelLimits(window=192_000))
    ours = [p for p in mind.review(revised, previous, budget) if "Mission" in p]
    theirs = ref.review_mind(revised, previous, 192_000).structure
    if theirs is not None and "fewer than" in theirs:
        assert ours
    if not ours:
        assert theirs is None or "fewer than" not in theirs


def test_the_estimate_is_the_references():
    for text in ("", "a", "abcd", "abcde", "é" * 3, "🙂"):
        assert estimate(text) == ref.text_tokens(text)


SECTION_OF = {
    "## Agreements": "Where I stand",
    "## Workstreams": "Goals",
    "# 3. Key decisions": "Key decisions",
    "# 4. Lessons": "Lessons",
}


@EXAMPLES
@given(
    grown=st.dictionaries(st.sampled_from(sorted(SECTION_OF)), st.integers(1, 400), max_size=4),
    window=st.integers(8_000, 400_000),
)
def test_the_sections_over_their_limits_are_the_references(grown, window):
    text = mind.template()
    for heading, lines in grown.items():
        filler = "\n".join(f"- note {i}: the migration needs care" for i in range(lines))
        text = text.replace(mind.PLACEHOLDERS[heading], filler)
    """vybe does not count the blank lines that part a section from the next (a token at
    most): sections that close to their limits are left out."""
    budget = compute(ModelLimits(window=window))
    sizes = mind.section_sizes(mind.parse(text))
    if any(abs(sizes[name] - limit) <= 1 for name, limit in budget.mind_limits.items()):
        return
    ours = mind.over_limits(mind.parse(text), budget)
    theirs = {title: size for title, size, _ in ref.review_mind(text, "", window).over}
    assert set(ours) == set(theirs)
    assert all(0 <= theirs[name] - size <= 1 for name, (size, _) in ours.items())
