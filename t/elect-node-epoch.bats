#!/usr/bin/env bats
# elect-node and epochs (Nerio 10.6, share/elect/lease.md, Epochs): what
# this version has of a membership change.  Through the handshake a peer
# of another epoch is confirmed, whatever its membership, but its core's
# messages never reach ours.

load helper
load node

setup() {
	elect_setup
	C=$(mkcluster 2)
	K=$(mkkey "$ELECT_DIR/key")
	export FD_STUB_LOG=$ELECT_DIR/fd.log
	elect_start_cluster -k "$K" -a bully-fd --fd-cmd "$STUB/fd-stub" "$C" -- 1
	T=$ELECT_DIR/1/trace
	wait_for 5 grep -q -- "--digest" "$FD_STUB_LOG"
	DIGEST=$(sed -n 's/.*--digest \([0-9a-f]*\).*/\1/p' "$FD_STUB_LOG")
}

teardown() {
	elect_teardown
}

# peer INC EPOCH CLUSTER-DIGEST: plays node 2's incarnation INC from its
# own address: a HELLO of EPOCH (0: none) with the given membership
# digest (hex), the answer to node 1's challenge, then one Halt
# (bully-fd's type 1).
peer() {
	timeout 10 python3 - "$K" "$(port 2)" "$(port 1)" "${DIGEST:0:32}" \
	    "$3" "$2" "$1" <<-'PY'
	import hashlib, os, socket, struct, sys
	key = open(sys.argv[1], "rb").read()
	mine, node = int(sys.argv[2]), int(sys.argv[3])
	conf = bytes.fromhex(sys.argv[4] + sys.argv[5])
	epoch, inc = int(sys.argv[6]), int(sys.argv[7])
	s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	s.bind(("127.0.0.1", mine))
	seq = 0
	def send(t, payload, grp=0):
	    global seq
	    seq += 1
	    h = struct.pack(">IBBHHHHHQQQQ", 0x454c4e44, 2, t, len(payload),
	        2, 1, grp, 0, inc, seq, inc if grp else 0, 1 if grp else 0)
	    mac = hashlib.blake2b(h + payload, key=key, digest_size=32)
	    s.sendto(h + payload + mac.digest(), ("127.0.0.1", node))
	def hello(echo, flags):
	    p = nonce + echo + conf
	    if epoch:
	        p += bytes([flags | 2]) + struct.pack(">I", epoch)
	    else:
	        p += bytes([flags])
	    send(255, p)
	nonce = os.urandom(16)
	hello(bytes(16), 0)
	while True:
	    d, _ = s.recvfrom(2048)
	    if d[5] == 255:
	        break
	hello(d[48:64], 1)
	send(1, b"", 2)		# Halt, with node 2's elid
	PY
}

@test "a peer of another epoch is confirmed whatever its members; its core's messages are dropped" {
	other=0123456789abcdef
	peer 1 1 "$other"
	wait_for 5 grep -q "drop from=2 why=epoch n=1" "$T"
	run grep -c " recv from=2" "$T"
	assert_output 0
	# Of our epoch with another membership: not confirmed, as before.
	peer 2 0 "$other"
	wait_for 5 grep -q "drop from=2 why=mismatch" "$T"
	run grep -c " recv from=2" "$T"
	assert_output 0
	# Of our epoch and membership: its message counts.
	peer 3 0 "${DIGEST:32:16}"
	wait_for 5 grep -q " recv from=2 msg=" "$T"
}
