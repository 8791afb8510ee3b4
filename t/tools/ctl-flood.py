#!/usr/bin/env python3
"""ctl-flood.py SOCKET N SECONDS READY [mix]: N clients of a control
socket that keep their slots: each sends "elect 1 status\\n" every 0.4 s
(so it is never idle) and connects again at once whenever it is dropped
or refused.  With mix, each connection is by turns one of three kinds:
one that hangs up at once, one that sends nothing and holds on until
dropped, and one that asks as above.  Writes "full" to READY once a
connection was refused a slot (err busy, or closed: one that found none
is answered at the door, if at all, and closed), then keeps on for
SECONDS (at most 120) and prints "busy B answered A": the refusals and
answers it got.  Bounded: never runs longer than SECONDS + 10 s."""
import os, select, socket, sys, time

path, n, secs, ready = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
mix = sys.argv[5:] == ["mix"]
secs = min(secs, 120.0)
line = b"elect 1 status\n"
socks = {}
busy = answered = 0
full = False
turn = 0
start = time.monotonic()
end = None


def dial():
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
    except OSError:
        s.close()
        return False
    global turn
    turn += 1
    if mix and turn % 3 == 0:
        s.close()
        return True
    s.setblocking(False)
    # The time of its next request: never, for an idle one.
    socks[s] = [float("inf") if mix and turn % 3 == 1 else 0.0, b""]
    return True


while True:
    now = time.monotonic()
    if end is not None and now >= end:
        break
    if now - start > secs + 10:
        break
    while len(socks) < n:
        if not dial():
            time.sleep(0.01)
            break
    for s, st in list(socks.items()):
        if now >= st[0]:
            try:
                s.send(line)
            except OSError:
                pass
            st[0] = now + 0.4
    r, _, _ = select.select(list(socks), [], [], 0.05)
    for s in r:
        st = socks[s]
        try:
            data = s.recv(4096)
        except OSError:
            data = b""
        if data:
            st[1] += data
            if b"err busy" not in st[1] and b"\n" in st[1]:
                answered += st[1].count(b"\n")
            st[1] = st[1][st[1].rfind(b"\n") + 1:]
            if b"err busy" not in data:
                continue
        busy += 1
        full = True
        del socks[s]
        s.close()
    if full and end is None:
        with open(ready, "w") as f:
            f.write("full\n")
        end = time.monotonic() + secs
print("busy %d answered %d" % (busy, answered))
