"""One HTTP request from a file, handled as the live server handles it:
the system test of examples/webapp is a raw request (request line,
headers, body).

  python3 driver.py REQUEST-FILE

The application is imported and its database opened and filled before the
runtime starts (when the instrumented SQLite waits for the host to say so,
CARVE_DEFER=1): under bridge's fork server, every run then starts from
that state, with the interpreter, the imports and the database ready.
"""
import ctypes
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import app  # noqa: E402


def start_runtime():
    """Starts the carving runtime here (the fork server forks from this
    point), when SQLite carries it; a no-op otherwise."""
    try:
        rt = ctypes.CDLL("libcarve_rt.so")
    except OSError:
        return
    rt.__carve_start()


class Conn:
    """What BaseHTTPRequestHandler needs of a connection: a file to read
    the request from, one to write the reply to."""

    def __init__(self, request):
        self.rfile = io.BytesIO(request)
        self.wfile = io.BytesIO()

    def makefile(self, mode, *args, **kwargs):
        return self.rfile if "r" in mode else self.wfile

    def sendall(self, data):
        self.wfile.write(data)


def handle(request):
    """The reply to one raw request."""
    conn = Conn(request)
    app.Handler(conn, ("127.0.0.1", 0), None)
    return conn.wfile.getvalue()


def main(argv):
    app.Handler.db = app.open_db()
    start_runtime()
    with open(argv[1], "rb") as f:
        request = f.read()
    reply = handle(request)
    sys.stdout.write(reply.split(b"\r\n", 1)[0].decode("latin-1") + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
