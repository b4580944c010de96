"""Credentials and transport on a real server started with TLS: a CA and a server
certificate made with `openssl` for a name that is not this machine's (db.internal,
reached at 127.0.0.1 through libpq's hostaddr), and a member role whose password only
libpq's password file holds; the store's owner is let in from 127.0.0.1 without it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.postgres.database import PgVybe
from tests.postgres.server import Server, scratch, tls_binaries

NAME = "db.internal"  # the name in the server's certificate, not one this machine has
PASSWORD = "tls-member-secret"


def _openssl(folder: Path, *argv: str) -> None:
    subprocess.run(["openssl", *argv], cwd=folder, check=True, capture_output=True)


def make_ca(folder: Path, name: str) -> Path:
    _openssl(
        folder, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-keyout", f"{name}.key", "-out", f"{name}.pem", "-subj", f"/CN={name}",
    )  # fmt: skip
    return folder / f"{name}.pem"


def make_server_cert(folder: Path, ca: str) -> tuple[Path, Path]:
    """server.pem for NAME (its subjectAltName) signed by ``ca``, and its key."""
    (folder / "san.ext").write_text(f"subjectAltName=DNS:{NAME}\n")
    _openssl(
        folder, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key",
        "-out", "server.csr", "-subj", f"/CN={NAME}",
    )  # fmt: skip
    _openssl(
        folder, "x509", "-req", "-in", "server.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
        "-CAcreateserial", "-days", "2", "-out", "server.pem", "-extfile", "san.ext",
    )  # fmt: skip
    return folder / "server.pem", folder / "server.key"


@pytest.fixture(scope="module")
def tls():
    """The server, with ssl on; its member only over TLS and with a password."""
    built = tls_binaries()
    if built is None:
        pytest.skip("no PostgreSQL built with OpenSSL on this machine")
    folder = scratch("vybe-pg-tls-")
    try:
        certs = folder / "tls"
        cert, key = certs / "server.pem", certs / "server.key"
        server = Server(folder, {"ssl": "on", "ssl_cert_file": str(cert), "ssl_key_file": str(key)})
        server.bin = built
        server.init()
        certs.mkdir()
        ca = make_ca(certs, "ca")
        make_server_cert(certs, "ca")
        if server.ids:  # the server runs as nobody: its key is its own, 0600
            for path in (certs, cert, key):
                os.chown(path, *server.ids)
        key.chmod(0o600)
        hba = server.data / "pg_hba.conf"
        hba.write_text(
            "hostssl all member 127.0.0.1/32 scram-sha-256\n"
            "host all member 127.0.0.1/32 reject\n" + hba.read_text()
        )
        server.start()
        server.admin("CREATE DATABASE vybe")
        try:
            yield server, ca
        finally:
            server.stop("immediate")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def member_role(tls, tmp_path_factory):
    """The owner made team t and its member role; the password set as psql's \\password
    would (an ALTER ROLE the owner runs, never a vybe command line)."""
    server, _ = tls
    owner = PgVybe(tmp_path_factory.mktemp("owner"), server.url("vybe"))
    owner.ok("admin", "team", "create", "t")
    owner.ok("admin", "grant", "member", "--team", "t")
    server.admin(f"ALTER ROLE member PASSWORD '{PASSWORD}'")
    yield owner
    owner.close()


def member_url(server: Server, ca: Path, host: str = NAME, mode: str = "verify-full") -> str:
    return (
        f"postgresql://member@{host}:{server.port}/vybe?hostaddr=127.0.0.1"
        f"&sslmode={mode}&sslrootcert={ca}"
    )


@pytest.fixture
def member(tls, member_role, tmp_path):
    server, ca = tls
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"{NAME}:{server.port}:vybe:member:{PASSWORD}\n")
    passfile.chmod(0o600)
    vybe = PgVybe(tmp_path / "member", member_url(server, ca))
    vybe.env["PGPASSFILE"] = str(passfile)
    yield vybe
    vybe.close()


def test_a_member_reaches_the_server_with_verify_full_and_its_password_from_pgpass(member):
    assert "member@" in member.url and PASSWORD not in member.url
    made = member.ok("task", "create", "--title", "over TLS", agent="alice")["task"]
    assert member.ok("task", "get", made["id"], agent="alice")["task"]["team"] == "t"
    checks = {c["name"]: c for c in member.ok("doctor")["checks"]}
    assert checks["transport"] == {
        "name": "transport",
        "ok": True,
        "detail": f"TLS, verify-full ({NAME})",
    }
    assert checks["credentials"]["ok"] and "member" in checks["credentials"]["detail"]
    assert PASSWORD not in json.dumps(checks)


def test_verify_full_refuses_a_certificate_for_another_name_or_from_another_ca(
    member, tls, tmp_path
):
    server, ca = tls
    member.env["VYBE_DB_URL"] = member_url(server, ca, host="127.0.0.1")
    wrong_name = member("task", "list", agent="alice")
    assert wrong_name.code != 0 and wrong_name.error_code == "DB_UNAVAILABLE"
    assert "127.0.0.1" in wrong_name.envelope["error"]
    member.env["VYBE_DB_URL"] = member_url(server, make_ca(tmp_path, "other"))
    other_ca = member("task", "list", agent="alice")
    assert other_ca.code != 0 and other_ca.error_code == "DB_UNAVAILABLE"
    assert PASSWORD not in json.dumps(other_ca.envelope)


def test_a_member_without_the_password_file_is_refused_without_a_traceback(member):
    del member.env["PGPASSFILE"]
    member.env["HOME"] = str(Path(member.env["HOME"]) / "nowhere")  # no ~/.pgpass either
    result = member("task", "list", agent="alice")
    assert result.code != 0 and result.error_code == "DB_UNAVAILABLE"


@pytest.mark.parametrize(("mode", "how"), [("disable", "without TLS"), ("require", "name")])
def test_doctor_fails_transport_for_a_remote_server_not_reached_with_verify_full(
    tls, member_role, mode, how
):
    server, _ = tls
    url = f"postgresql://postgres@{NAME}:{server.port}/vybe?hostaddr=127.0.0.1&sslmode={mode}"
    found = member_role.ok("doctor", "--db-url", url)
    checks = {c["name"]: c for c in found["checks"]}
    assert not found["ok"]
    assert not checks["transport"]["ok"] and how in checks["transport"]["detail"]
    assert "sslmode=verify-full" in checks["transport"]["detail"]
