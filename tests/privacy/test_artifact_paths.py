"""An artifact's path is the text vybe records of it: a password in a URL or a private span
in it never reaches the artifacts table."""

from __future__ import annotations

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
