"""The toolbox answers every call with an outcome: a failure is an error for the model."""

from __future__ import annotations

from vybe.agent.shell import BashPermission
from vybe.agent.tools import Toolbox
from vybe.llm.base import ToolCall


def test_an_unexpected_failure_is_an_error_result_not_a_crash(tmp_path):
    (tmp_path / "x.txt").write_text("one line\n")
    toolbox = Toolbox(tmp_path, {}, BashPermission())
    outcome = toolbox.run(ToolCall("c1", "read", {"path": "x.txt", "offset": float("inf")}))
    assert outcome.is_error and outcome.text.startswith("read failed")
