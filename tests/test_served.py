"""vybe's listeners (`vybe proxy`, `vybe ui`) print no traceback when a client goes away
(an agent cancels a turn, a browser leaves a page), and still report any other error."""

from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler

import pytest

from vybe.proxy.relay import ProxyServer
from vybe.served import QuietServer
from vybe.ui.server import Viewer


class Failing(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        raise ConnectionResetError(104, "reset") if self.path == "/gone" else ValueError("bug")


@pytest.fixture
def served():
    server = QuietServer(("127.0.0.1", 0), Failing)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


def ask(server: QuietServer, path: str) -> None:
    conn = http.client.HTTPConnection(*server.server_address[:2], timeout=5)
    try:
        conn.request("GET", path)
        with pytest.raises(http.client.RemoteDisconnected):
            conn.getresponse()
    finally:
        conn.close()


def test_a_client_gone_prints_nothing_and_another_error_its_traceback(served, capfd):
    ask(served, "/gone")
    assert capfd.readouterr().err == ""
    ask(served, "/bug")
    err = capfd.readouterr().err
    assert "Traceback" in err and "ValueError: bug" in err


def test_the_proxy_and_the_viewer_are_quiet_servers():
    assert issubclass(ProxyServer, QuietServer) and issubclass(Viewer, QuietServer)
