"""Sends test requests to the live server, one server per request.

  python3 live.py TEST...

For each TEST (a raw HTTP request, as the campaign keeps them), starts
`app.py` on a free port of 127.0.0.1 (with the SQLite library the
environment's LD_LIBRARY_PATH finds), sends the file's bytes over a real
connection, and prints one line: `reproduced against the live server:
TEST` when the server died of a signal while handling it, `did not
reproduce against the live server: TEST` otherwise, with the server's
status line or its signal. Exits 0 when every test reproduced, 1 when one
did not, 2 when a server could not start.
"""
import os
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
START_TIMEOUT = 30
REPLY_TIMEOUT = 10


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server():
    """The server process and its port, once it listens."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "app.py"), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    line = server.stdout.readline().decode(errors="replace")
    if not line.startswith("shop on"):
        server.kill()
        err = server.stderr.read().decode(errors="replace")
        raise RuntimeError(f"the server did not start: {line.strip() or err.strip()}")
    return server, port


def send(port, request):
    """The server's reply (possibly empty) to `request`, sent whole and
    then half-closed, as a client that has nothing more to say."""
    with socket.create_connection(("127.0.0.1", port), timeout=REPLY_TIMEOUT) as s:
        s.sendall(request)
        s.shutdown(socket.SHUT_WR)
        chunks = []
        try:
            while chunk := s.recv(65536):
                chunks.append(chunk)
        except (ConnectionResetError, socket.timeout):
            pass
    return b"".join(chunks)


def outcome(server):
    """How the server ended, if it did within a moment."""
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return server.returncode
        time.sleep(0.05)
    return None


def check(path):
    with open(path, "rb") as f:
        request = f.read()
    server, port = start_server()
    try:
        try:
            reply = send(port, request)
        except OSError as e:
            reply = f"(connection failed: {e})".encode()
        code = outcome(server)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    if code is not None and code < 0:
        name = signal.Signals(-code).name
        print(f"reproduced against the live server: {path} (the server died of {name})", flush=True)
        return True
    status = reply.split(b"\r\n", 1)[0].decode("latin-1") or "no reply"
    print(f"did not reproduce against the live server: {path} ({status})", flush=True)
    return False


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    ok = True
    for path in argv[1:]:
        try:
            ok = check(path) and ok
        except (OSError, RuntimeError) as e:
            print(f"live.py: {path}: {e}", file=sys.stderr)
            return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
