"""No mutation ever moves a live lease's end earlier, whatever the clocks of the agents
that renew it say: a heartbeat from a clock that is behind, or with a shorter --lease,
would otherwise hand a task its holder is working on to another agent."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

STEP = st.tuples(
    st.sampled_from(("heartbeat", "claim", "claim --next", "begin")),
    st.sampled_from(("alice", "bob")),
    st.integers(min_value=60, max_value=7200),  # --lease, seconds
    st.integers(min_value=-7200, max_value=7200),  # this agent's clock, seconds off
)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(steps=st.lists(STEP, min_size=1, max_size=8))
def test_no_mutation_moves_a_live_leases_end_earlier(vybe, steps):
    task_id = vybe.task("t")
    vybe.env.pop("VYBE_CLOCK_SKEW", None)
    held = vybe.ok("task", "claim", "--id", task_id, "--lease", "15m", agent="alice")["task"]
    for verb, agent, lease, skew in steps:
        vybe.env.update(VYBE_CLOCK_SKEW=str(skew), VYBE_TEST_CLOCK="1")
        line = {
            "heartbeat": ["task", "heartbeat", "--task-id", task_id],
            "claim": ["task", "claim", "--id", task_id],
            "claim --next": ["task", "claim", "--next"],
            "begin": ["task", "begin", "--task-id", task_id],
        }[verb]
        vybe(*line, "--lease", f"{lease}s", agent=agent)
        now = vybe.ok("task", "get", "--task-id", task_id)["task"]
        if (now["claimed_by"], now["claim_epoch"]) == (held["claimed_by"], held["claim_epoch"]):
            assert now["lease_expires_at"] >= held["lease_expires_at"], (verb, agent, skew)
        held = now
    vybe.env.pop("VYBE_CLOCK_SKEW", None)
    vybe.ok("done", task_id, "--force", agent="alice")
