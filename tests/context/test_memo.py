"""MEMO: candidates only from user rows, checkbox-only changes, fitting that never loses marks."""

from hypothesis import given
from hypothesis import strategies as st

from vybe.context import memo
from vybe.context.budget import ModelLimits, compute
from vybe.context.checkpoints import MemoMark
from vybe.context.record import MessageRow

BUDGET = compute(ModelLimits(window=200_000))
ORIGINAL = "- [ ] (#3) Never push to main\n- [x] (#5) Use uv, not pip\n"


def row(seq, kind, text="t"):
    return MessageRow("s", seq, kind, text)


def test_only_user_rows_become_candidates():
    moved = [
        row(1, "user"),
        row(2, "harness"),
        row(3, "assistant"),
        row(4, "system"),
        row(5, "user"),
    ]
    assert [m.seq for m in memo.offer((), moved)] == [1, 5]


def test_previous_marks_are_offered_again_with_their_state():
    offered = memo.offer((MemoMark(1, True), MemoMark(2, False)), [row(7, "user")])
    assert offered == [MemoMark(1, True), MemoMark(2, False), MemoMark(7, False)]


def test_checkbox_flip_is_read_back():
    edited = ORIGINAL.replace("- [ ] (#3)", "- [x] (#3)").replace("- [x] (#5)", "- [ ] (#5)")
    assert memo.read_file(ORIGINAL, edited) == [MemoMark(3, True, True), MemoMark(5, False)]


def test_capital_x_counts_as_ticked():
    assert memo.read_file(ORIGINAL, ORIGINAL.replace("[ ]", "[X]"))[0] == MemoMark(3, True, True)


def test_text_edit_is_refused():
    assert memo.read_file(ORIGINAL, ORIGINAL.replace("Never push", "Do not push")) is None


def test_deleted_line_is_refused():
    assert memo.read_file(ORIGINAL, "- [ ] (#3) Never push to main\n") is None


def test_changed_number_is_refused():
    assert memo.read_file(ORIGINAL, ORIGINAL.replace("(#3)", "(#4)")) is None


def test_blank_lines_and_trailing_spaces_do_not_matter():
    assert memo.read_file(ORIGINAL, ORIGINAL.replace("\n", "  \n\n")) is not None


def test_preview_collapses_whitespace_and_is_short():
    assert memo.preview("a\n  b") == "a b"
    assert memo.preview("x" * 500).endswith("…")


def test_merge_keeps_released_marks_not_offered():
    merged = memo.merge(
        (MemoMark(1, False), MemoMark(2, True)),
        [MemoMark(2, False), MemoMark(9, True)],
        {},
        BUDGET,
    )
    assert merged == (MemoMark(1, False), MemoMark(2, False), MemoMark(9, True))


def test_fit_keeps_short_messages_verbatim():
    kept, left = memo.fit([(1, "short"), (2, "also short")], 300, 3000)
    assert [k.text for k in kept] == ["short", "also short"] and left == []


def test_fit_cuts_a_long_message_and_says_where_it_is():
    kept, _ = memo.fit([(4, "w" * 4000)], 300, 3000)
    assert kept[0].cut and "#4 in the record" in kept[0].text
    assert memo.estimate(kept[0].text) <= 300


def test_fit_shortens_evenly_over_budget():
    kept, left = memo.fit([(i, "v" * 1200) for i in range(1, 11)], 300, 1000)
    assert left == [] and all(k.cut for k in kept)
    assert sum(memo.estimate(k.text) for k in kept) <= 1000


def test_fit_keeps_first_and_newest_when_even_share_is_too_small():
    kept, left = memo.fit([(i, "u" * 400) for i in range(1, 101)], 300, 400)
    seqs = [k.seq for k in kept]
    assert seqs[0] == 1 and seqs[-1] == 100 and left
    assert set(left) | set(seqs) == set(range(1, 101))


def test_merge_bounds_the_stored_memo_to_what_a_checkpoint_could_show():
    previous = tuple(MemoMark(i, i % 2 == 0) for i in range(1, 2001))
    texts = {i: "keep this exact wording, please " * 3 for i in range(1, 3001)}  # 24 tokens
    merged = memo.merge(previous, [MemoMark(3000, True)], texts, BUDGET)
    checked = [m.seq for m in merged if m.checked]
    released = [m.seq for m in merged if not m.checked]
    assert len(checked) == BUDGET.memo_total // 24 and checked[0] == 2
    assert checked[-2:] == [2000, 3000] and released == list(range(1961, 2000, 2))


def test_merge_keeps_many_short_ones_that_fit_whole_up_to_their_frames():
    previous = tuple(MemoMark(i, True) for i in range(1, 1001))
    merged = memo.merge(previous, [], {i: "ok" for i in range(1, 1001)}, BUDGET)
    assert len(merged) == BUDGET.memo_total // memo.FRAME_TOKENS and merged[0].seq == 1


SMALL = compute(ModelLimits(window=32_000))
CONSTRAINT = "Never run migrations on Fridays; always open a pull request for review."
LOG = "2026-12-02T10:00:00Z billing-worker[4123]: INFO batch committed rows=5000\n" * 22


def test_memo_md_shows_a_tick_only_where_the_model_ticked():
    marks = [MemoMark(1, True, True), MemoMark(2, True, False), MemoMark(3, False)]
    lines = memo.render_file(marks, {1: "a", 2: "b", 3: "c"}).splitlines()
    assert lines == ["- [x] (#1) a", "- [ ] (#2) b", "- [ ] (#3) c"]


def test_fit_shows_the_ticked_whole_and_shortens_or_leaves_out_the_fallbacks_first():
    texts = [(1, "Ship the billing move."), (2, CONSTRAINT)] + [(i, LOG) for i in range(3, 15)]
    kept, left = memo.fit(texts, SMALL.memo_per_message, SMALL.memo_total, {2})
    shown = {k.seq: k for k in kept}
    assert shown[2].text == CONSTRAINT and not shown[2].cut
    assert all(shown[s].cut for s in shown if s != 2 and s != 1) and left
    assert sum(memo.estimate(k.text) for k in kept) <= SMALL.memo_total


def test_fit_gives_the_ticked_what_they_get_alone_whatever_the_fallback_kept():
    ticked = [(2, CONSTRAINT), (5, "Please keep each batch small.")]
    alone, _ = memo.fit(ticked, SMALL.memo_per_message, SMALL.memo_total, {2, 5})
    flood = ticked + [(i, LOG) for i in range(6, 60)]
    together, _ = memo.fit(sorted(flood), SMALL.memo_per_message, SMALL.memo_total, {2, 5})
    assert [k for k in together if k.seq in (2, 5)] == alone


def test_fit_with_nothing_ticked_keeps_the_first_and_the_newest_as_before():
    texts = [(i, "u" * 400) for i in range(1, 101)]
    assert memo.fit(texts, 300, 400, set()) == memo.fit(texts, 300, 400)
    kept, _ = memo.fit(texts, 300, 400, set())
    assert kept[0].seq == 1 and kept[-1].seq == 100


def test_every_candidate_kept_by_a_fallback_never_stores_fewer_ticked_ones():
    texts = {1: "Ship the billing move.", 2: CONSTRAINT, **{i: LOG for i in range(3, 40)}}
    previous = (MemoMark(1, True, True), MemoMark(2, True, True))
    offered = memo.offer(previous, [row(i, "user") for i in range(3, 40)])
    kept_all = [MemoMark(m.seq, True, m.ticked) for m in offered]
    merged = memo.merge(previous, kept_all, texts, SMALL)
    assert {1, 2} <= {m.seq for m in merged if m.ticked}
    assert all(m.checked for m in merged if m.seq in (1, 2))


@given(
    sizes=st.lists(st.integers(1, 400), min_size=1, max_size=40),
    ticks=st.lists(st.booleans(), min_size=40, max_size=40),
    total=st.integers(0, 3000),
)
def test_the_ticked_ones_shown_never_depend_on_the_others(sizes, ticks, total):
    texts = [(i + 1, "w" * (4 * n)) for i, n in enumerate(sizes)]
    ticked = {s for s, _ in texts if ticks[s - 1]}
    alone, _ = memo.fit([t for t in texts if t[0] in ticked], 300, total, ticked)
    kept, left = memo.fit(texts, 300, total, ticked)
    assert [k for k in kept if k.seq in ticked] == alone
    assert sorted([k.seq for k in kept] + left) == [s for s, _ in texts]


@given(
    sizes=st.lists(st.integers(1, 400), min_size=1, max_size=60),
    ticks=st.lists(st.booleans(), min_size=60, max_size=60),
    flood=st.lists(st.integers(1, 400), max_size=30),
)
def test_a_kept_all_fallback_stores_and_shows_every_ticked_one_the_previous_did(
    sizes, ticks, flood
):
    texts = {i + 1: "w" * (4 * n) for i, n in enumerate(sizes + flood)}
    decided = [MemoMark(i + 1, ticks[i], ticks[i]) for i in range(len(sizes))]
    previous = memo.merge((), decided, texts, SMALL)
    moved = [row(len(sizes) + i + 1, "user") for i in range(len(flood))]
    kept_all = [MemoMark(m.seq, True, m.ticked) for m in memo.offer(previous, moved)]
    after = memo.merge(previous, kept_all, texts, SMALL)

    def shown(marks):
        pairs = [(m.seq, texts[m.seq]) for m in marks if m.checked]
        ticked = {m.seq for m in marks if m.ticked}
        kept, _ = memo.fit(pairs, SMALL.memo_per_message, SMALL.memo_total, ticked)
        return [k for k in kept if k.seq in ticked]

    assert [m for m in after if m.ticked] == [m for m in previous if m.ticked]
    assert shown(after) == shown(previous)
