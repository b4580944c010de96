"""An artifact's path, a project's name and metadata are text vybe records: a password in a URL,
a credential or a private span in them never reaches the store."""

from __future__ import annotations

import json

from tests.privacy.planted import planted


def test_an_artifacts_path_keeps_no_password_nor_private_span(vybe):
    _, password, _ = next(p for p in planted() if p[0] == "url-password")
    task = vybe.task("ship the build")
    url = f"https://deploy:{password}@artifacts.example/build-17.zip"
    vybe.ok("artifacts", "add", "--task-id", task, "--path", url)
    private = "out/report.md<private> for the board only</private>"
    vybe.ok("artifacts", "add", "--task-id", task, "--path", private)
    paths = [p for (p,) in vybe.sql("SELECT file_path FROM artifacts ORDER BY created_at")]
    assert paths == [
        "https://deploy:[REDACTED:url-password]@artifacts.example/build-17.zip",
        "out/report.md",
    ]
    dump = vybe.dump()
    assert password not in dump and "for the board only" not in dump


def test_a_projects_name_and_metadata_keep_no_secret_nor_private_span(vybe):
    _, token, line = next(p for p in planted() if p[0] == "token-assignment")
    vybe.ok(
        "project", "create", "--name", "acme <private>for the divorce case</private>",
        "--project-id", "/srv/acme", "--metadata", json.dumps({"deploy": line}),
    )  # fmt: skip
    assert vybe.sql("SELECT name, metadata FROM projects") == [
        ("acme ", json.dumps({"deploy": "DEPLOY_TOKEN=[REDACTED:generic-api-key]"}))
    ]
    dump = vybe.dump()
    assert token not in dump and "divorce" not in dump
