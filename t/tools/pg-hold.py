#!/usr/bin/env python3
"""pg-hold.py SOCKET LOG: a TCP proxy on 127.0.0.1 in front of the
PostgreSQL server at the unix socket SOCKET that holds a write on its
way, as a slow network does.  It writes "port PORT" to LOG once it
listens, takes one client, and passes the startup and authentication
through; the client's first query (a Query or Parse message) and all
that follows it are held, and "held BYTES" written to LOG.  On SIGUSR1
it sends what it held, and all that comes after, to the server, whether
the client is still there or not (a client that died has sent it all the
same), and writes "released" to LOG.  What the server answers after that
is written to LOG, one line a message: "server error MESSAGE" for an
ErrorResponse, "server done TAG" for a CommandComplete.  It ends when the
server closes the connection, writing "closed".  Bounded: it gives up
after 120 s, waiting for a client too, and after 10 s on a send that does
not go through."""
import os, select, signal, socket, struct, sys, time

path, log = sys.argv[1], sys.argv[2]
deadline = time.monotonic() + 120
released = False
rfd, wfd = os.pipe()
os.set_blocking(wfd, False)


def say(line):
    with open(log, "a") as f:
        f.write(line + "\n")


def on_usr1(sig, frame):
    try:
        os.write(wfd, b"x")
    except BlockingIOError:
        pass


signal.signal(signal.SIGUSR1, on_usr1)
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", 0))
ls.listen(1)
say("port %d" % ls.getsockname()[1])
# Bounded as all that follows: a client that never comes, a peer that
# never reads, end it with an exception and a non-zero exit.
ls.settimeout(deadline - time.monotonic())
c, _ = ls.accept()
ls.close()
c.settimeout(10)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
s.connect(path)

cbuf = b""          # from the client, not yet looked at
held = b""          # from the client, held
holding = False
startup = True      # untyped messages: SSLRequest, GSSENCRequest, StartupMessage
client_open = True
sbuf = b""          # from the server, after the release


def from_client(data):
    """Passes DATA on, message by message, until the first query."""
    global cbuf, held, holding, startup
    cbuf += data
    while not holding:
        if startup:
            if len(cbuf) < 8:
                return
            n, code = struct.unpack("!ii", cbuf[:8])
            if len(cbuf) < n:
                return
            s.sendall(cbuf[:n])
            cbuf = cbuf[n:]
            # 80877103: SSLRequest, 80877104: GSSENCRequest.
            if code not in (80877103, 80877104):
                startup = False
            continue
        if len(cbuf) < 5:
            return
        t = cbuf[:1]
        (n,) = struct.unpack("!i", cbuf[1:5])
        if len(cbuf) < 1 + n:
            return
        if t in (b"Q", b"P"):
            holding = True
            break
        s.sendall(cbuf[:1 + n])
        cbuf = cbuf[1 + n:]
    held += cbuf
    cbuf = b""


def from_server(data):
    global sbuf
    if client_open:
        try:
            c.sendall(data)
        except OSError:
            pass
    if not released:
        return
    sbuf += data
    while len(sbuf) >= 5:
        t = sbuf[:1]
        (n,) = struct.unpack("!i", sbuf[1:5])
        if len(sbuf) < 1 + n:
            return
        body, sbuf = sbuf[5:1 + n], sbuf[1 + n:]
        if t == b"E":
            fields = dict((f[:1], f[1:].decode(errors="replace"))
                          for f in body.split(b"\0") if f)
            say("server error %s" % fields.get(b"M", "?"))
        elif t == b"C":
            say("server done %s" % body.rstrip(b"\0").decode())


said_held = False
while time.monotonic() < deadline:
    fds = [s, rfd] + ([c] if client_open else [])
    r, _, _ = select.select(fds, [], [], 1)
    if rfd in r:
        os.read(rfd, 64)
        if not released:
            released = True
            say("released")
            s.sendall(held)
            held = b""
            if not client_open:
                s.shutdown(socket.SHUT_WR)
    if c in r and client_open:
        try:
            data = c.recv(65536)
        except OSError:
            data = b""
        if not data:
            client_open = False
            c.close()
            if released:
                s.shutdown(socket.SHUT_WR)
        elif released:
            s.sendall(data)
        else:
            from_client(data)
            if holding and not said_held:
                said_held = True
                say("held %d" % len(held))
    if s in r:
        data = s.recv(65536)
        if not data:
            say("closed")
            sys.exit(0)
        from_server(data)
say("gave up")
sys.exit(1)
