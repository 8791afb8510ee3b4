#!/usr/bin/env python3
"""ctl-idle.py SOCKET MODE N READY: clients of a control socket that
misbehave, for the tests.  MODE idle: N connections that never send;
loris: N connections that send "elect 1 status\\n" one byte a second;
wait: N connections that send "elect 1 wait-leader\\n" and wait.  Writes
"connected N" to READY once all are open, then, once each connection has
been dropped or answered (at most 60 s), prints one line per connection:
"closed SECONDS BYTES-SENT FIRST-REPLY-LINE" or "open" for those still
open then.  Bounded: never runs longer than 70 s."""
import os, select, socket, sys, time

path, mode, n, ready = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
hold = float(os.environ.get("CTL_IDLE_HOLD", "60"))
line = {"loris": b"elect 1 status\n", "wait": b"elect 1 wait-leader\n"}
socks, t0, sent, got, done = [], [], [], [], []
for i in range(n):
    s = socket.socket(socket.AF_UNIX)
    s.setblocking(False)
    # A full backlog says EAGAIN: the daemon takes the next soon.
    for tries in range(1000):
        try:
            s.connect(path)
            break
        except BlockingIOError:
            time.sleep(0.01)
    else:
        sys.exit("connect: backlog full for 10 s")
    socks.append(s)
    t0.append(time.monotonic())
    sent.append(0)
    got.append(b"")
    done.append(None)
    if mode == "wait":
        s.send(line["wait"])
        sent[i] = len(line["wait"])
with open(ready + ".tmp", "w") as f:
    f.write("connected %d\n" % n)
os.rename(ready + ".tmp", ready)
start = time.monotonic()
nextbyte = start
while time.monotonic() - start < hold and None in done:
    now = time.monotonic()
    if mode == "loris" and now >= nextbyte:
        for i, s in enumerate(socks):
            if done[i] is None and sent[i] < len(line["loris"]):
                try:
                    s.send(line["loris"][sent[i]:sent[i] + 1])
                    sent[i] += 1
                except OSError:
                    pass
        nextbyte += 1
    p = select.poll()
    fds = {}
    for i, s in enumerate(socks):
        if done[i] is None:
            p.register(s, select.POLLIN)
            fds[s.fileno()] = i
    for fd, ev in p.poll(100):
        i = fds[fd]
        try:
            b = socks[i].recv(4096)
        except BlockingIOError:
            continue
        except OSError:
            b = b""
        got[i] += b
        if b == b"" or (mode == "wait" and b"\n" in got[i]):
            done[i] = time.monotonic() - t0[i]
for i in range(n):
    if done[i] is None:
        print("open")
    else:
        first = got[i].split(b"\n")[0].decode(errors="replace") or "-"
        print("closed %.2f %d %s" % (done[i], sent[i], first))
