"""The entry point an agent loop calls before every model request.

    engine = Engine(record, model, ModelLimits(window=200_000))
    prepared = engine.prepare(session_id, system_prompt, tools)
    reply = model.complete(prepared.request)
    record_assistant(record, session_id, reply, prepared.tokens, prepared.checkpoint_id)

``prepare`` checkpoints when the request reaches the threshold, climbs the overflow ladder
when it cannot fit (rolling checkpoint at most twice, then a move of the earliest half with
no model call, then the newest tool output cut), and raises ContextExhausted when nothing
more can move out. Everything it decides is in the record: checkpoints and attempt rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from vybe import clock
from vybe.context import assemble, carry, memo
from vybe.context.assemble import VYBE, View
from vybe.context.budget import Budget, ModelLimits, compute, estimate, tools_tokens
from vybe.context.checkpoints import MemoMark
from vybe.context.projection import Unit, units
from vybe.context.prompt import digest
from vybe.context.record import Attempt, Checkpoint, Record, check_session_id
from vybe.context.turn import TOO_LARGE, TurnInput, TurnResult, run_turn, turn_tools
from vybe.context.views import Views
from vybe.errors import ContextExhausted
from vybe.llm.base import Model, Request, ToolSpec

UNPRODUCTIVE_LIMIT = 2
UNPRODUCTIVE_SHARE = 0.75
MAX_ROLLS = 2
DIGEST_ROOM = 2_000
PROMPT_ROOM = 1_600
STALE_NOW = (
    "[Messages #{start} to #{end} moved out of the context without a checkpoint; this now was "
    "written before them and may be stale. The record holds them.]"
)


@dataclass(frozen=True)
class Prepared:
    """The request to send, its estimate, and the checkpoint attempts made to get there."""

    request: Request
    tokens: int
    checkpoint_id: int | None
    attempts: tuple[Attempt, ...] = ()

    @property
    def checkpointed(self) -> bool:
        return any(a.outcome == "accepted" for a in self.attempts)


class Engine:
    """Keeps each session's requests inside the model's window; one instance is one run."""

    def __init__(
        self,
        record: Record,
        model: Model,
        limits: ModelLimits,
        *,
        run_id: str | None = None,
        vybe: str = VYBE,
    ) -> None:
        """``vybe`` starts the ready commands a recollection hands the agent (the record
        query, the search): an absolute path and ``--agent`` where the owner knows them."""
        self.record = record
        self.model = model
        self.limits = limits
        self.run_id = run_id or clock.new_id("run")
        self._unproductive: dict[str, int] = {}
        self.views = Views(record, vybe)

    def new_run(self) -> None:
        """Start another run: a fresh run id, and the unproductive checkpoints count from 0."""
        self.run_id = clock.new_id("run")
        self._unproductive.clear()

    def prepare(
        self,
        session_id: str,
        system: str,
        tools: tuple[ToolSpec, ...] = (),
        *,
        refused: bool = False,
    ) -> Prepared:
        """The next request of a session; ``refused`` after the provider refused the last one."""
        check_session_id(session_id)
        budget = compute(self.limits)
        view = self.views.load(session_id)
        request, tokens = self._build(view, budget, system, tools)
        attempts: list[Attempt] = []
        if (budget.due(tokens) or refused) and self._may_checkpoint(session_id):
            reason = "threshold" if budget.can_fit(tokens) and not refused else "overflow"
            attempts.append(self._checkpoint(view, budget, system, tools, reason, tokens))
            view = self.views.load(session_id)
            request, tokens = self._build(view, budget, system, tools)
        rolls = MAX_ROLLS if attempts and _too_large(attempts[-1]) else 0
        cap = None
        must_move = refused and not (attempts and attempts[-1].outcome == "accepted")
        while not budget.can_fit(tokens) or must_move:
            several = len(units(view.rows)) > 1
            attempt = None
            if self._may_checkpoint(session_id) and rolls < MAX_ROLLS and several:
                rolls += 1
                attempt = self._checkpoint(
                    view, budget, system, tools, "overflow", tokens, rolling=True
                )
                rolls = MAX_ROLLS if _too_large(attempt) else rolls
            elif several:
                attempt = self._drop(view, budget, tokens)
            elif cap is None:
                cap = self._newest_cap(request, tokens, budget)
            else:
                raise self._exhausted(request, tokens, budget)
            if attempt is not None:
                attempts.append(attempt)
            must_move = must_move and attempt is not None and attempt.outcome == "failed"
            view = self.views.load(session_id)
            request, tokens = self._build(view, budget, system, tools, cap)
        checkpoint_id = view.checkpoint.id if view.checkpoint else None
        return Prepared(request, tokens, checkpoint_id, tuple(attempts))

    def checkpoint_now(
        self,
        session_id: str,
        system: str,
        tools: tuple[ToolSpec, ...] = (),
        *,
        keep: int | None = None,
    ) -> Attempt:
        """One checkpoint a person asked for, whatever the threshold; a failure changes nothing.
        ``keep``: the tokens of recent messages left out of it (the budget's keep when None;
        0 moves all but the newest unit, for a client that keeps nothing but the summary)."""
        check_session_id(session_id)
        budget = compute(self.limits)
        view = self.views.load(session_id)
        _, tokens = self._build(view, budget, system, tools)
        return self._checkpoint(view, budget, system, tools, "requested", tokens, keep=keep)

    def _build(
        self,
        view: View,
        budget: Budget,
        system: str,
        tools: tuple[ToolSpec, ...],
        cap: int | None = None,
    ) -> tuple[Request, int]:
        request, raw = assemble.build(view, budget, system, tools, cap)
        return request, raw + self._correction(view)

    def _correction(self, view: View) -> int:
        """Reported minus estimated size of the newest answered request on this checkpoint."""
        row = view.newest_answered()
        if row is None:
            return 0
        facts, usage = row.data["request"], row.data["usage"]
        current = view.checkpoint.id if view.checkpoint else None
        if facts.get("checkpoint_id") != current:
            return 0
        spent: int = usage["input_tokens"] - facts["tokens"]
        return spent

    def _may_checkpoint(self, session_id: str) -> bool:
        return self._unproductive.get(session_id, 0) < UNPRODUCTIVE_LIMIT

    def _checkpoint(
        self,
        view: View,
        budget: Budget,
        system: str,
        tools: tuple[ToolSpec, ...],
        reason: str,
        tokens: int,
        rolling: bool = False,
        keep: int | None = None,
    ) -> Attempt:
        """One checkpoint turn; a failure is recorded and changes nothing else."""
        parts = units(view.rows)
        mode = "rolling" if rolling else "normal"
        if len(parts) < 2:
            return self._fail(view, mode, reason, tokens, "nothing to move out")
        index = max(carry.tail_index(parts, budget.keep if keep is None else keep), 1)
        prefix_view = view
        if rolling or not budget.can_fit(tokens + self._turn_overhead(view, budget)):
            mode = "rolling"
            fixed = estimate(system) + tools_tokens(turn_tools(tools))
            found = self._rolling_index(view, budget, parts, fixed)
            if found is None:
                error = f"{TOO_LARGE}: not even the first unit of the conversation fits in one"
                return self._fail(view, mode, reason, tokens, error)
            index = found
            prefix_view = replace(view, rows=[r for u in parts[:index] for r in u.rows])
        cut = carry.cut_at(view, index)
        previous = view.checkpoint
        offered = memo.offer(previous.memo if previous else (), cut.moved)
        texts = {
            r.seq: r.text
            for r in self.record.messages_at(view.session_id, [m.seq for m in offered])
        }
        inp = TurnInput(
            system=system,
            tools=tools,
            prefix=tuple(assemble.messages(prefix_view, budget)),
            previous_mind=previous.mind if previous else "",
            marks=tuple(offered),
            memo_texts=texts,
            kept_digest=digest(parts[index:], self._digest_room(budget)),
            summarized_to=cut.summarized_to,
            budget=budget,
        )
        result = run_turn(self.model, inp)
        if result.now is None:
            return self._fail(view, mode, reason, tokens, result.error or "no now", result)
        checkpoint = self._new_checkpoint(view, cut, mode, result.mind, result.now, tokens, budget)
        checkpoint = checkpoint._replace(
            memo=memo.merge(previous.memo if previous else (), list(result.marks), texts, budget)
        )
        return self._accept(view, checkpoint, reason, budget, result, result.flagged)

    def _turn_overhead(self, view: View, budget: Budget) -> int:
        """Room the checkpoint request takes beyond the prefix: prompt, files, digest."""
        previous = view.checkpoint
        lines = sum(1 for r in view.rows if r.type == "user") + (
            len(previous.memo) if previous else 0
        )
        mind_size = estimate(previous.mind) if previous else 0
        return PROMPT_ROOM + self._digest_room(budget) + mind_size + 30 * lines

    def _digest_room(self, budget: Budget) -> int:
        return min(DIGEST_ROOM, budget.keep // 5)

    def _rolling_index(
        self, view: View, budget: Budget, parts: list[Unit], fixed: int
    ) -> int | None:
        """About half the tokens, moved earlier until the checkpoint turn fits; None if never."""
        fraction = 0.5
        while True:
            index = carry.fraction_index(parts, fraction)
            prefix = replace(view, rows=[r for u in parts[:index] for r in u.rows])
            _, size = assemble.build(prefix, budget, "", ())
            if budget.can_fit(size + fixed + self._turn_overhead(view, budget)):
                return index
            if index <= 1:
                return None
            fraction /= 2

    def _new_checkpoint(
        self,
        view: View,
        cut: carry.Cut,
        mode: str,
        mind_text: str,
        now_text: str,
        tokens: int,
        budget: Budget,
    ) -> Checkpoint:
        previous = view.checkpoint
        candidate = Checkpoint(
            session_id=view.session_id,
            mode=mode,
            first_kept_seq=cut.first_kept_seq,
            summarized_to_seq=cut.summarized_to,
            mind=mind_text,
            now=now_text,
            memo=previous.memo if previous else (),
            kept_inputs=cut.kept_inputs,
            skills=carry.carry_skills(previous.skills if previous else (), cut.moved, cut.kept),
            files=carry.carry_files(previous.files if previous else {}, cut.moved),
            tokens_before=tokens,
        )
        return candidate

    def _after_tokens(self, view: View, checkpoint: Checkpoint, budget: Budget) -> int:
        extra = dict(view.extra)
        wanted = {m.seq for m in checkpoint.memo if m.checked} | set(checkpoint.kept_inputs)
        wanted |= {s["seq"] for s in checkpoint.skills}
        missing = wanted - set(extra)
        extra.update({r.seq: r for r in self.record.messages_at(view.session_id, missing)})
        rows = [r for r in view.rows if r.seq >= checkpoint.first_kept_seq]
        after = assemble.build(View(view.session_id, checkpoint, rows, extra), budget, "", ())[1]
        before = assemble.build(view, budget, "", ())[1]
        return checkpoint.tokens_before - before + after

    def _accept(
        self,
        view: View,
        checkpoint: Checkpoint,
        reason: str,
        budget: Budget,
        result: TurnResult | None,
        flagged: tuple[str, ...],
    ) -> Attempt:
        after = self._after_tokens(view, checkpoint, budget)
        checkpoint = checkpoint._replace(tokens_after=after)
        attempt = Attempt(
            session_id=view.session_id,
            mode=checkpoint.mode,
            reason=reason,
            outcome="accepted",
            tokens_before=checkpoint.tokens_before,
            tokens_after=after,
            problems=result.problems if result else (),
            repair_ran=result.repair_ran if result else False,
            fallbacks=tuple(result.fallbacks) if result else (),
            flagged_references=flagged,
            rounds=result.rounds if result else 0,
            usage=result.usage if result else {},
            run_id=self.run_id,
        )
        if checkpoint.mode != "dropped" and after >= UNPRODUCTIVE_SHARE * budget.threshold:
            self._count_unproductive(view.session_id)
        return self.record.save(attempt, checkpoint)[0]

    def _fail(
        self,
        view: View,
        mode: str,
        reason: str,
        tokens: int,
        error: str,
        result: TurnResult | None = None,
    ) -> Attempt:
        self._count_unproductive(view.session_id)
        attempt = Attempt(
            session_id=view.session_id,
            mode=mode,
            reason=reason,
            outcome="failed",
            tokens_before=tokens,
            problems=result.problems if result else (),
            repair_ran=result.repair_ran if result else False,
            rounds=result.rounds if result else 0,
            usage=result.usage if result else {},
            error=error,
            run_id=self.run_id,
        )
        return self.record.save(attempt, None)[0]

    def _count_unproductive(self, session_id: str) -> None:
        self._unproductive[session_id] = self._unproductive.get(session_id, 0) + 1

    def _drop(self, view: View, budget: Budget, tokens: int) -> Attempt:
        """Move the earliest half out with no model call, keeping the previous checkpoint."""
        parts = units(view.rows)
        cut = carry.cut_at(view, carry.fraction_index(parts, 0.5))
        previous = view.checkpoint
        users = [MemoMark(r.seq, True) for r in cut.moved if r.type == "user"]
        stale = STALE_NOW.format(start=cut.moved[0].seq, end=cut.summarized_to)
        checkpoint = self._new_checkpoint(
            view,
            cut,
            "dropped",
            previous.mind if previous else "",
            f"{previous.now}\n\n{stale}" if previous and previous.now else stale,
            tokens,
            budget,
        )
        texts = {r.seq: r.text for r in [*view.extra.values(), *cut.moved]}
        checkpoint = checkpoint._replace(memo=memo.merge(checkpoint.memo, users, texts, budget))
        return self._accept(view, checkpoint, "overflow", budget, None, ())

    def _newest_cap(self, request: Request, tokens: int, budget: Budget) -> int:
        """A cap on each of the newest tool outputs that lets the request fit."""
        newest = []
        for message in reversed(request.messages):
            if message.role != "tool":
                break
            newest.append(estimate(message.content))
        if not newest:
            return 0
        room = budget.input_limit - budget.reply_reserve - (tokens - sum(newest))
        return max(room // len(newest) - 1, 0)

    def _exhausted(self, request: Request, tokens: int, budget: Budget) -> ContextExhausted:
        return ContextExhausted(
            "This conversation has grown too long to continue reliably. Start a new session.",
            context={
                "tokens": tokens,
                "input_limit": budget.input_limit,
                "reply_reserve": budget.reply_reserve,
                "system": estimate(request.system),
                "messages": len(request.messages),
            },
            suggested_action="start a new session; this one stays in the record",
        )


def _too_large(attempt: Attempt) -> bool:
    """A checkpoint turn that could not be sent: another roll of the same cut cannot fit either."""
    return attempt.outcome == "failed" and (attempt.error or "").startswith(TOO_LARGE)
