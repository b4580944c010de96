"""The fake model servers' own behaviour, on which many tests' stderr assertions rest."""

from __future__ import annotations

import socket
import struct
import time

from tests.fakes.servers import FakeServer, Response


def test_a_client_that_resets_its_connection_leaves_no_traceback_on_stderr(capfd):
    with FakeServer(lambda received: Response(body={})) as server:
        host, port = server.url.removeprefix("http://").split(":")
        for _ in range(3):
            client = socket.create_connection((host, int(port)))
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            client.close()  # an RST, not a FIN: the server's read fails with ECONNRESET
        time.sleep(0.2)
    assert "Traceback" not in capfd.readouterr().err
