#!/usr/bin/env python3
"""ctl-churn.py SOCKET N SECONDS READY: N clients of a control socket
that connect again as fast as they can whenever they are dropped,
refused or answered, each time one of three kinds: one that hangs up at
once, one that sends nothing and holds on until dropped, one that sends
"elect 1 status\\n" every 0.4 s (never idle: it keeps a slot it gets).
Writes "full" to READY once a connection was told err busy, then keeps
on for SECONDS (at most 120) and prints "connects C answered A busy B".
Bounded: never runs longer than SECONDS + 10 s."""
import os, select, socket, sys, time

path, n, secs, ready = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
secs = min(secs, 120.0)
line = b"elect 1 status\n"
socks = {}      # socket -> [kind, next send, bytes read]
conns = answered = busy = turn = 0
start = time.monotonic()
end = None

while True:
    now = time.monotonic()
    if (end is not None and now >= end) or now - start > secs + 10:
        break
    while len(socks) < n:
        s = socket.socket(socket.AF_UNIX)
        s.setblocking(False)
        try:
            s.connect(path)
        except OSError:
            # A full backlog (EAGAIN): the daemon takes the next soon.
            s.close()
            break
        conns += 1
        turn += 1
        if turn % 3 == 0:
            s.close()
            continue
        socks[s] = [turn % 3, 0.0, b""]
    for s, st in socks.items():
        if st[0] == 2 and now >= st[1]:
            try:
                s.send(line)
            except OSError:
                pass
            st[1] = now + 0.4
    if not socks:
        time.sleep(0.001)
        continue
    r, _, _ = select.select(list(socks), [], [], 0.01)
    for s in r:
        st = socks[s]
        try:
            data = s.recv(4096)
        except OSError:
            data = b""
        lines = (st[2] + data).split(b"\n")
        st[2] = lines.pop()
        answered += sum(1 for l in lines if l.startswith(b"ok "))
        refused = b"err busy" in lines
        if data and not refused:
            continue
        if refused:
            busy += 1
            if end is None:
                with open(ready + ".tmp", "w") as f:
                    f.write("full\n")
                os.rename(ready + ".tmp", ready)
                end = time.monotonic() + secs
        del socks[s]
        s.close()
print("connects %d answered %d busy %d" % (conns, answered, busy))
