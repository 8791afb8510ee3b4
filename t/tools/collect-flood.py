#!/usr/bin/env python3
"""collect-flood.py HOST PORT SOURCES IDLE STOP READY: a stranger without
the key against a keyed collector (elect-trace collect -k), for the
tests.  From each of the SOURCES addresses 127.0.0.2, 127.0.0.3, ... it
keeps up to IDLE connections open that never send, opening new ones as
the collector closes them, and from 127.0.0.2 it opens connection after
connection that sends 21 lines of garbage and closes.  Once a round has
run it writes "ready" to READY; it stops when the file STOP exists (or
after 120 s), then prints "garbage N idle-opened N refused N": the
garbage connections made, the idle ones opened, the connects that
failed."""
import errno, os, resource, socket, sys, time

host, port = sys.argv[1], int(sys.argv[2])
sources, idle = int(sys.argv[3]), int(sys.argv[4])
stop, ready = sys.argv[5], sys.argv[6]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
garbage = b"".join(b"\x1b[2Jnot a trace line %d\n" % i for i in range(21))
held = {s: [] for s in range(sources)}
stats = {"garbage": 0, "idle-opened": 0, "refused": 0}
end = time.monotonic() + 120
said = False


def connect(src):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.%d" % (2 + src), 0))
    s.settimeout(1)
    try:
        s.connect((host, port))
    except OSError:
        s.close()
        stats["refused"] += 1
        return None
    return s


def alive(s):
    """Whether the collector still holds S open (its challenge is read)."""
    s.setblocking(False)
    try:
        while True:
            b = s.recv(4096)
            if not b:
                return False
    except BlockingIOError:
        return True
    except OSError:
        return False


while not os.path.exists(stop) and time.monotonic() < end:
    for src in range(sources):
        live = [s for s in held[src] if alive(s)]
        for s in held[src]:
            if s not in live:
                s.close()
        while len(live) < idle and time.monotonic() < end:
            s = connect(src)
            if s is None:
                break
            live.append(s)
            stats["idle-opened"] += 1
        held[src] = live
    for i in range(50):
        s = connect(0)
        if s is None:
            continue
        try:
            s.recv(128)     # the challenge: the garbage is then read
            s.sendall(garbage)
        except OSError:
            pass
        s.close()
        stats["garbage"] += 1
    if not said:
        with open(ready, "w") as f:
            f.write("ready\n")
        said = True
print(" ".join("%s %d" % kv for kv in stats.items()))
