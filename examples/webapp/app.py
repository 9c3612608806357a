"""shop: a small web application over SQLite, standard library only.

Routes:
  GET  /search?q=PATTERN&sort=COLUMN&hl=TERM
       items whose name contains PATTERN (LIKE), sorted by COLUMN (id,
       name or price: an allow-list), each name with TERM highlighted
       (the extension's highlight(); TERM defaults to PATTERN)
  POST /items            a form body: name=NAME&price=CENTS
       inserts an item (bound parameters); its tags come from tags(name)
  POST /api/score        a JSON body: {"text": TEXT, "weight": 0..10}
       the extension's score(TEXT, WEIGHT)
  GET  /items/ID         one item as JSON
  GET  /count?name=NAME  how many items are called NAME: the name quoted
       into the SQL text (a quote doubled), as careless applications do

What the application checks before any SQL runs (the validation that makes
some of the extension's failures unreachable): PATTERN, TERM and the
NAME of /count at most 64 characters, COLUMN in the allow-list, NAME 1 to 32 characters of letters,
digits, blanks, '_' and '-', CENTS 0 to 1000000, TEXT at most 256
characters, WEIGHT an integer 0 to 10.

Run the live server: python3 app.py [--port 8080] (on 127.0.0.1). The SQL
functions come from the SQLite library Python loads (the example's build
has them compiled in: see shopext.c and scripts/webapp.sh).
"""
import json
import re
import sqlite3
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer

SCHEMA = """
CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price INTEGER NOT NULL,
                   tags TEXT NOT NULL DEFAULT '');
"""
ITEMS = [
    ("red chair", 4500),
    ("oak table", 23000),
    ("banana bandana cabana", 1200),
    ("desk lamp", 3900),
    ("wool rug", 15000),
    ("blue chair", 4700),
]
SORTABLE = ("id", "name", "price")
NAME = re.compile(r"[A-Za-z0-9 _-]{1,32}")


def open_db(path=":memory:"):
    """The shop's database, filled with its items."""
    db = sqlite3.connect(path, check_same_thread=False)
    db.executescript(SCHEMA)
    for name, price in ITEMS:
        db.execute("INSERT INTO items(name, price, tags) VALUES (?, ?, tags(?))", (name, price, name))
    db.commit()
    return db


def quoted(text):
    """`text` as an SQL string literal: in single quotes, a quote doubled."""
    return "'" + text.replace("'", "''") + "'"


class BadRequest(Exception):
    pass


class Handler(BaseHTTPRequestHandler):
    """One request; `db` is the connection the server or the driver opened."""

    db = None
    server_version = "shop/1"

    def log_message(self, *args):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n < 0 or n > 4096:
            raise BadRequest("body too large")
        return self.rfile.read(n)

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def route(self, method):
        url = urllib.parse.urlsplit(self.path)
        try:
            if method == "GET" and url.path == "/search":
                return self.search(urllib.parse.parse_qs(url.query))
            if method == "GET" and url.path == "/count":
                return self.count(urllib.parse.parse_qs(url.query))
            if method == "GET" and url.path.startswith("/items/"):
                return self.item(url.path[len("/items/"):])
            if method == "POST" and url.path == "/items":
                return self.add(urllib.parse.parse_qs(self.body().decode("utf-8", "replace")))
            if method == "POST" and url.path == "/api/score":
                return self.score(self.body())
            self.reply(404, {"error": "no such page"})
        except BadRequest as e:
            self.reply(400, {"error": str(e)})
        except (ValueError, sqlite3.Error) as e:
            self.reply(400, {"error": str(e)})

    def search(self, q):
        pattern = q.get("q", [""])[0]
        term = q.get("hl", [pattern])[0]
        column = q.get("sort", ["id"])[0]
        if len(pattern) > 64 or len(term) > 64:
            raise BadRequest("pattern too long")
        if column not in SORTABLE:
            raise BadRequest("cannot sort by that")
        rows = self.db.execute(
            f"SELECT id, highlight(name, ?), price FROM items WHERE name LIKE ? ORDER BY {column}",
            (term, f"%{pattern}%"),
        ).fetchall()
        self.reply(200, [{"id": i, "name": n, "price": p} for i, n, p in rows])

    def count(self, q):
        name = q.get("name", [""])[0]
        if len(name) > 64:
            raise BadRequest("name too long")
        (n,) = self.db.execute(f"SELECT count(*) FROM items WHERE name = {quoted(name)}").fetchone()
        self.reply(200, {"count": n})

    def item(self, ident):
        if not ident.isdigit():
            raise BadRequest("bad id")
        row = self.db.execute("SELECT id, name, price, tags FROM items WHERE id = ?", (int(ident),)).fetchone()
        if row is None:
            return self.reply(404, {"error": "no such item"})
        self.reply(200, dict(zip(("id", "name", "price", "tags"), row)))

    def add(self, form):
        name = form.get("name", [""])[0]
        price = form.get("price", [""])[0]
        if not NAME.fullmatch(name):
            raise BadRequest("a name is 1 to 32 letters, digits, blanks, '_' or '-'")
        if not price.isdigit() or int(price) > 1000000:
            raise BadRequest("a price is 0 to 1000000 cents")
        cur = self.db.execute("INSERT INTO items(name, price, tags) VALUES (?, ?, tags(?))", (name, int(price), name))
        self.reply(201, {"id": cur.lastrowid})

    def score(self, raw):
        doc = json.loads(raw)
        if not isinstance(doc, dict):
            raise BadRequest("a JSON object is expected")
        text, weight = doc.get("text"), doc.get("weight", 1)
        if not isinstance(text, str) or len(text) > 256:
            raise BadRequest("text: a string of at most 256 characters")
        if not isinstance(weight, int) or not 0 <= weight <= 10:
            raise BadRequest("weight: an integer 0 to 10")
        (value,) = self.db.execute("SELECT score(?, ?)", (text, weight)).fetchone()
        self.reply(200, {"score": value})


def main(argv):
    port = 8080
    if len(argv) == 3 and argv[1] == "--port":
        port = int(argv[2])
    Handler.db = open_db()
    server = HTTPServer(("127.0.0.1", port), Handler)
    print(f"shop on http://127.0.0.1:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main(sys.argv)
