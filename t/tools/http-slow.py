#!/usr/bin/env python3
"""http-slow.py HOST:PORT N SECONDS READY: N slow HTTP clients (slowloris).
Each sends a request one byte every 0.3 s, never finishing its headers,
and connects again at once whenever it is closed.  Writes "up" to READY
once all N were connected at the same time, then keeps on for SECONDS
(at most 120) and prints "dropped D": how often the server closed one.
Bounded: never runs longer than SECONDS + 10 s."""
import socket, sys, time

host, port = sys.argv[1].rsplit(":", 1)
n, secs, ready = int(sys.argv[2]), min(float(sys.argv[3]), 120.0), sys.argv[4]
req = b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"X-a: b\r\n" * 10000
socks = {}
dropped = 0
start = time.monotonic()
end = None


def dial():
    s = socket.socket()
    s.settimeout(1.0)
    try:
        s.connect((host, int(port)))
    except OSError:
        s.close()
        return
    s.setblocking(False)
    socks[s] = [0.0, 0]


while True:
    now = time.monotonic()
    if now - start > secs + 10 or (end is not None and now >= end):
        break
    for _ in range(n - len(socks)):
        dial()
    if end is None and len(socks) == n:
        with open(ready, "w") as f:
            f.write("up\n")
        end = time.monotonic() + secs
    for s, st in list(socks.items()):
        if now < st[0]:
            continue
        st[0] = now + 0.3
        try:
            s.send(req[st[1]:st[1] + 1])
            st[1] = (st[1] + 1) % len(req)
            # A closed connection shows as EOF on a read.
            if s.recv(1) == b"":
                raise OSError
        except BlockingIOError:
            pass
        except OSError:
            dropped += 1
            s.close()
            del socks[s]
    time.sleep(0.02)
print("dropped %d" % dropped)
