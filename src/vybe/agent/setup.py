"""Wire one run of the agent: the model from the settings, the engine, tools and runner."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vybe import clock
from vybe.agent.loop import Listener, Runner
from vybe.agent.shell import BashPermission
from vybe.agent.skills import discover
from vybe.agent.tasks import TaskTools
from vybe.agent.tools import Toolbox
from vybe.config import read_sections
from vybe.context.budget import ModelLimits
from vybe.llm.base import Watch
from vybe.llm.models import ModelInfo
from vybe.llm.providers import Choice, connect, settle
from vybe.store.record import Origin, SqliteRecord


@dataclass
class Run:
    """A connected runner and what it was built from."""

    runner: Runner
    info: ModelInfo
    session_id: str


def limits(info: ModelInfo) -> ModelLimits:
    """The engine's view of the model's table entry."""
    return ModelLimits(
        window=info.window,
        input_limit=info.input_limit,
        max_output=info.max_output,
        price_steps=info.price_steps,
    )


def model_info(choice: Choice, config_file: str | None) -> tuple[ModelInfo, Any, Any]:
    return settle(choice, read_sections(config_file))


def engine_for(
    store: Any,
    choice: Choice,
    config_file: str | None,
    scripted: bool,
    agent: str,
    workdir: Path | None = None,
) -> tuple[Any, ModelInfo]:
    """An engine over the store's record: the connected model, or the offline consolidator;
    its recollections' commands run as ``agent`` from this vybe. A session it starts is
    ``agent``'s, in the project of ``workdir`` (the working folder) when given.

    Connecting probes the server, so a bad key or a dead server fails here, before any turn.
    """
    from vybe import config
    from vybe.agent.offline import Consolidator
    from vybe.context.engine import Engine

    info, base_url, key_env = model_info(choice, config_file)
    model = Consolidator() if scripted else connect(info, base_url, key_env)
    project = os.path.abspath(workdir) if workdir is not None else None
    record = SqliteRecord(store, Origin(agent, project))
    return Engine(record, model, limits(info), vybe=config.command_line(agent)), info


def start(
    store: Any,
    agent: str,
    config_file: str | None,
    choice: Choice,
    *,
    session_id: str | None,
    bash: BashPermission,
    workdir: Path,
    listen: Listener | None = None,
    watch: Watch | None = None,
    read_anywhere: bool = False,
) -> Run:
    """Connect the model and wire the runner of one session; ``watch`` sees replies stream;
    ``read_anywhere`` (the person's say) lets read go outside the working folder."""
    engine, info = engine_for(store, choice, config_file, False, agent, workdir)
    session = session_id or clock.new_id("ses")
    toolbox = Toolbox(
        workdir, discover(workdir), bash, TaskTools(store, agent, session), read_anywhere
    )
    runner = Runner(engine.record, engine, engine.model, toolbox, workdir, watch=watch)
    if listen is not None:
        runner.listen = listen
    return Run(runner, info, session)
