"""The threaded HTTP server under vybe's own listeners (`vybe proxy`, `vybe ui`): a client
that goes away mid-conversation (a reset or a closed pipe: an agent cancelling a turn it
resends, a browser leaving a page, a kept-alive connection dropped) made that choice
itself; the server prints no traceback for it. Any other error is reported as the
standard library reports it."""

from __future__ import annotations

import sys
from http.server import ThreadingHTTPServer
from typing import Any


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exception(), ConnectionError):
            super().handle_error(request, client_address)
