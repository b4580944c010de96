"""16 OS processes, each with its own connection, making 50 mixed mutations at once."""

from __future__ import annotations

import multiprocessing
import random
from datetime import timedelta
from functools import partial
from pathlib import Path

import pytest

from vybe.actions import events, projects, tasks
from vybe.errors import VybeError
from vybe.store import SqliteStore

# N OS processes racing for the store: they get the machine to themselves (make test).
pytestmark = pytest.mark.serial

WORKERS = 16
MUTATIONS = 50
LEASE = timedelta(minutes=15)


def setup_store(path: Path) -> list[str]:
    """A project and four tasks every worker touches; returns the shared task ids."""
    store = SqliteStore(path)
    try:
        projects.create(store, "setup", "setup-p", name="p", project_id="p")
        return [
            tasks.create(store, "setup", f"setup-{n}", title=f"shared {n}", project_id="p")["task"][
                "id"
            ]
            for n in range(4)
        ]
    finally:
        store.close()


def pick(rng: random.Random, agent: str, own: list[str], shared: list[str]) -> tuple:
    """One mutation as (name, callable taking store and request id)."""
    target = rng.choice(own) if own and rng.random() < 0.5 else rng.choice(shared)
    choices = [
        ("create", partial(tasks.create, title=f"{agent} task", project_id="p")),
        ("note", partial(tasks.note, task_id=target, message=f"{agent} was here")),
        ("assign", partial(tasks.assign, task_id=target, to="somebody")),
        ("claim", partial(tasks.claim, task_id=None, project_id="p", lease=LEASE)),
        ("artifact", partial(events.add_artifact, task_id=target, file_path=f"{agent}.txt")),
    ]
    if own:
        mine = rng.choice(own)
        choices += [
            ("block", partial(tasks.block, task_id=mine, reason="waiting")),
            ("reopen", partial(tasks.set_status, task_id=mine, status="pending")),
            ("done", partial(tasks.done, task_id=mine, note="ok", force=True)),
        ]
    return rng.choice(choices)


def worker(args: tuple[str, list[str], int]) -> dict:
    path, shared, n = args
    agent, rng = f"agent-{n}", random.Random(n)
    store = SqliteStore(Path(path))
    own: list[str] = []
    done: list[tuple] = []
    mismatches, errors = [], []
    try:
        for k in range(MUTATIONS):
            name, action = pick(rng, agent, own, shared)
            request_id = f"{agent}-{k}"
            try:
                first = action(store, agent, request_id)
            except VybeError as exc:
                errors.append(f"{name}: {exc.code} {exc.message}")
                continue
            if name == "create":
                own.append(first["task"]["id"])
            done.append((request_id, action, first))
            if rng.random() < 0.3 and action(store, agent, request_id) != first:
                mismatches.append(request_id)
        for request_id, action, first in done:
            if action(store, agent, request_id) != first:
                mismatches.append(request_id)
    except Exception as exc:  # anything escaping is a failure the parent reports
        errors.append(f"escaped: {type(exc).__name__}: {exc}")
    finally:
        store.close()
    event_ids = [first["event_id"] for _, _, first in done if first.get("event_id")]
    event_ids += [a["event_id"] for _, _, first in done for a in [first.get("artifact") or {}] if a]
    return {"mismatches": mismatches, "errors": errors, "event_ids": event_ids}


def count_rows(path: Path, table: str) -> int:
    store = SqliteStore(path)
    try:
        return store.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    finally:
        store.close()


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[Path, list[dict], int]:
    path = tmp_path_factory.mktemp("writers") / "vybe.db"
    shared = setup_store(path)
    setup_events = count_rows(path, "events")
    with multiprocessing.get_context("fork").Pool(WORKERS) as pool:
        results = pool.map(worker, [(str(path), shared, n) for n in range(WORKERS)])
    return path, results, setup_events


# What the contract refuses on purpose: handing off a task another agent holds, or a done one.
REFUSALS = ("ALREADY_CLAIMED", "NOT_CLAIMABLE")


def test_no_error_escaped_any_writer(run):
    _, results, _ = run
    errors = [e for r in results for e in r["errors"]]
    assert [e for e in errors if e.split(" ", 2)[1] not in REFUSALS] == []


def test_every_replay_returned_the_first_result(run):
    _, results, _ = run
    assert [m for r in results for m in r["mismatches"]] == []


def test_the_event_log_holds_exactly_the_acknowledged_events(run):
    path, results, setup_count = run
    acknowledged = [e for r in results for e in r["event_ids"]]
    assert len(acknowledged) > WORKERS * MUTATIONS * 0.8
    assert len(acknowledged) == len(set(acknowledged))
    store = SqliteStore(path)
    try:
        logged = {row[0] for row in store.conn.execute("SELECT id FROM events")}
    finally:
        store.close()
    assert len(logged) == setup_count + len(acknowledged)
    assert set(acknowledged) <= logged


def test_the_idempotency_ledger_has_one_row_per_request(run):
    path, results, _ = run
    refused = sum(len(r["errors"]) for r in results)  # a refusal changes nothing, keeps no row
    assert count_rows(path, "idempotency") == 5 + WORKERS * MUTATIONS - refused
