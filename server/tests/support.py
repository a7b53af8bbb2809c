"""What the server's Python test tools share: a free port, polling until something holds,
and a JSON call to the server's API. No packages beyond the standard library, so that a
tool without Selenium (server/web/tests/record.py) can use it too."""

import json
import socket
import time
import urllib.request


def free_port():
    """A free TCP port on the loopback, as the system hands one out now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, body=None, headers=None):
    """Calls the server's API; answers the JSON body (None when empty)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def wait_until(what, condition, timeout=15, every=0.05):
    """Polls `condition` every `every` seconds until it returns something true, and
    returns that; fails naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)
