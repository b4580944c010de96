"""Redaction's cost: a prompt hook with redaction on (an ordinary prompt, and one holding
a credential, which compiles its rules) against a bare `python -c "import sqlite3"` and
the same prompt with ``privacy.redact: false``, in one interleaved run (goal: at most 2x
the floor); then the redactor's throughput on a 1 MB tool output (this repository's own
source, with and without 40 planted secrets, and with the rules' own files in it, whose
keywords make every rule run: the worst case); then the false-positive rate: what the
redactor finds in this repository's own source, docs and benchmarks (the privacy rules'
own files and the planted fixtures aside) and in the tests' corpus of ordinary code,
paths, hashes and UUIDs, each line that it changes counted a false positive.

Run: .venv/bin/python benchmarks/privacy.py [--runs 30]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import Run, compile_vybe, interleaved, report_hook_errors

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))
VYBE = str(Path(sys.executable).with_name("vybe"))


def prompt_run(env: dict[str, str], project: str, prompt: str) -> Run:
    payload = {"session_id": "s1", "cwd": project, "hook_event_name": "UserPromptSubmit"}
    stdin = json.dumps({**payload, "prompt": prompt}).encode()
    return Run([VYBE, "hook", "run", "claude"], env, stdin)


def environment(home: Path, redact: bool) -> dict[str, str]:
    config = home / "config"
    config.mkdir(parents=True)
    (config / "config.yaml").write_text(
        "default_agent: claude\n" + ("" if redact else "privacy:\n  redact: false\n")
    )
    env = {**os.environ, "HOME": str(home), "VYBE_CONFIG_DIR": str(config)}
    env["VYBE_DB_PATH"] = str(home / "vybe.db")
    subprocess.run([VYBE, "init"], env=env, check=True, capture_output=True)
    return env


# Keywords of rules in ordinary words: "sk" (task), "ey" (they), "s." and "test_".
EVERYDAY = "they asked for a task. fix test_login in the tests."


def hooks(runs: int) -> None:
    from tests.privacy.planted import planted

    secret_line = planted()[4][2]  # a GitHub token in an export line
    with tempfile.TemporaryDirectory() as folder:
        on, off = environment(Path(folder, "on"), True), environment(Path(folder, "off"), False)
        ordinary = "add a test for the login flow and keep the api stable"
        timed = interleaved(
            {
                "floor": Run([sys.executable, "-c", "import sqlite3"], on),
                "prompt, redaction off": prompt_run(off, folder, ordinary),
                "prompt, redaction on": prompt_run(on, folder, ordinary),
                "everyday words, on": prompt_run(on, folder, EVERYDAY),
                "prompt with a token, on": prompt_run(on, folder, f"use {secret_line}"),
            },
            runs,
        )
        report_hook_errors(Path(folder, "on", "config"))
    floor = timed["floor"]
    for name, ms in timed.items():
        print(f"{name:28} {ms:7.1f} ms  {ms / floor:4.2f}x the floor")


def throughput() -> None:
    from tests.privacy.planted import planted

    from vybe.privacy import Redactor

    paths = sorted((ROOT / "src").rglob("*.py"))
    # The rules' own files hold every rule's keyword: each of the 217 rules then runs.
    source = "".join(p.read_text() for p in paths if "privacy" not in p.relative_to(ROOT).parts)
    output = source[: 1 << 20]
    planted_lines = "\n".join(line for _, _, line in planted())
    seeded = output[: len(output) - len(planted_lines)] + planted_lines
    rules = "".join(p.read_text() for p in paths if "privacy" in p.relative_to(ROOT).parts)
    every_rule = output[: len(output) - len(rules)] + rules
    for name, text in (
        ("1 MB of source", output),
        ("1 MB with 40 secrets", seeded),
        ("1 MB with every keyword", every_rule),
    ):
        redactor = Redactor()
        redactor.redact(text)  # compiles what this text needs
        start = time.perf_counter()
        _, counts = redactor.redact(text)
        seconds = time.perf_counter() - start
        mb = len(text.encode()) / 1e6
        found = sum(counts.values())
        print(f"{name:28} {seconds * 1000:7.1f} ms  {mb / seconds:5.1f} MB/s  {found} found")


def false_positives() -> None:
    from tests.privacy.test_redaction import ordinary_corpus

    from vybe.privacy import Redactor

    folders = [(ROOT / name).rglob(glob) for name, glob in FP_SOURCES]
    paths = [p for found in folders for p in found if "privacy" not in p.relative_to(ROOT).parts]
    lines = [line for p in sorted(paths) for line in p.read_text().splitlines()]
    mb = sum(len(line.encode()) + 1 for line in lines) / 1e6
    for name, texts in (
        (f"own source ({len(paths)} files, {mb:.1f} MB)", lines),
        ("corpus of code, paths, hashes, ids", ordinary_corpus()),
    ):
        redactor = Redactor()
        changed = sum(1 for text in texts if redactor.redact(text)[1])
        rate = changed / len(texts)
        print(f"false positives, {name}: {changed} of {len(texts)} lines ({rate:.4%})")


FP_SOURCES = (("src", "*.py"), ("docs", "*.md"), ("benchmarks", "*.py"), ("tests", "*.py"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    compile_vybe()
    hooks(args.runs)
    throughput()
    false_positives()


if __name__ == "__main__":
    main()
