"""The TCP gate (lsfemu/daemon/tcp.py) on its own: signature, freshness, replay,
peer addresses; and the client's half of the wire format (lsfemu/protocol.py)."""

import os
import stat
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu import client, protocol
from lsfemu.daemon.tcp import MAX_SKEW, TcpGate, ensure_key, normal_address

KEY = b"k" * 64


def _req(argv=("sleep", "10"), cmd="bsub"):
    return {"cmd": cmd, "argv": list(argv), "cwd": "/tmp", "env": {"A": "1"}, "stdin": None, "tty": False}


def _frame(key=KEY, user="user1", req=None, **kw) -> bytes:
    body = protocol.encode_request(req or _req())[4:]
    frame, _nonce = protocol.sign_request(key, user, body, **kw)
    return frame[4:]  # the daemon reads the length itself


def test_good_request_is_admitted_once():
    gate = TcpGate(KEY, accept_since=0)
    raw = _frame()
    user, nonce, req = gate.verify(raw)
    assert (user, req["cmd"], req["argv"], req["env"]) == ("user1", "bsub", ["sleep", "10"], {"A": "1"})
    assert len(nonce) == 32
    assert gate.verify(raw) == "the request was already received (a replay)"


def test_wrong_key_tampering_and_garbage_are_refused():
    gate = TcpGate(KEY, accept_since=0)
    assert gate.verify(_frame(key=b"x" * 64)) == "the request is not signed with this cluster's key"
    raw = _frame()
    tampered = raw.replace(b"sleep", b"sleeq")
    assert tampered != raw
    assert gate.verify(tampered) == "the request is not signed with this cluster's key"
    # The user is signed too: another name with the same signature is refused.
    other = raw.replace(b"user1", b"user2")
    assert gate.verify(other) == "the request is not signed with this cluster's key"
    assert gate.verify(b"\x00\x00") == "not an lsfemu request"
    assert gate.verify(protocol.encode_fields(["lsfemu-tcp/9", "a", "b", "c", "d", "e"])[4:]) == "not an lsfemu request"
    # After all that, the good request still goes through (no nonce was burnt by the refusals).
    assert isinstance(gate.verify(raw), tuple)


def test_stale_future_and_pre_start_timestamps_are_refused():
    now = time.time()
    gate = TcpGate(KEY, accept_since=now - 1000)
    old = str(int((now - MAX_SKEW - 5) * 1000))
    assert "away from the master's clock" in gate.verify(_frame(ts=old), now=now)
    future = str(int((now + MAX_SKEW + 5) * 1000))
    assert "away from the master's clock" in gate.verify(_frame(ts=future), now=now)
    assert isinstance(gate.verify(_frame(ts=str(int((now - MAX_SKEW + 5) * 1000))), now=now), tuple)
    fresh = TcpGate(KEY, accept_since=now)
    before = str(int((now - 10) * 1000))
    assert fresh.verify(_frame(ts=before), now=now) == "the request was signed before this daemon started serving; send it again"
    # A standby that took over at `now` (lsfemu.daemon.master) refuses what was signed before.
    assert gate.verify(_frame(ts=before), now=now, not_before=now) == fresh.verify(_frame(ts=before), now=now)
    assert isinstance(gate.verify(_frame(ts=str(int(now * 1000) + 5)), now=now, not_before=now), tuple)


def test_signed_but_malformed_fields_are_refused():
    gate = TcpGate(KEY, accept_since=0)
    assert gate.verify(_frame(nonce="not-hex")) == "malformed signed request"
    assert gate.verify(_frame(user="two words")) == "malformed signed request"
    assert gate.verify(_frame(ts="soon")) == "malformed signed request"


def test_nonce_memory_is_pruned_but_keeps_fresh_nonces():
    gate = TcpGate(KEY, accept_since=0)
    now = time.time()
    for _ in range(4100):
        assert isinstance(gate.verify(_frame(), now=now), tuple)
    first = _frame()
    assert isinstance(gate.verify(first, now=now), tuple)
    for _ in range(10):
        gate.verify(_frame(), now=now)
    assert gate.verify(first, now=now) == "the request was already received (a replay)"
    assert len(gate._seen) < 4200


@settings(max_examples=60, deadline=None)
@given(argv=st.lists(st.text(max_size=20), max_size=5), user=st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True))
def test_any_request_round_trips_and_any_flipped_byte_is_refused(argv, user):
    gate = TcpGate(KEY, accept_since=0)
    raw = _frame(user=user, req=_req(argv=argv))
    for i in range(0, len(raw), max(1, len(raw) // 7)):
        bad = raw[:i] + bytes([raw[i] ^ 0x01]) + raw[i + 1:]
        assert isinstance(gate.verify(bad), str)
    got_user, _nonce, req = gate.verify(raw)
    assert (got_user, req["argv"]) == (user, argv)


def test_answers_are_signed_over_the_nonce():
    gate = TcpGate(KEY, accept_since=0)
    frame = gate.answer("ab" * 16, "Job <1> is submitted.\n", "", 0)[4:]
    assert protocol.read_answer(KEY, "ab" * 16, frame, "h") == ("Job <1> is submitted.\n", "", 0)
    # An answer to another request (another nonce) or under another key is not believed.
    out, err, rc = protocol.read_answer(KEY, "cd" * 16, frame, "h:1")
    assert (out, rc) == ("", 255) and "not signed with this cluster's key" in err
    out, err, rc = protocol.read_answer(b"y" * 64, "ab" * 16, frame, "h:1")
    assert (out, rc) == ("", 255) and "not signed" in err
    # An unsigned answer is shown only as a refusal (rc 255, nothing on stdout).
    forged = protocol.encode_fields(["0", "Job <9> is submitted.\n", "", ""])[4:]
    assert protocol.read_answer(KEY, "ab" * 16, forged, "h:1")[2] == 255
    refusal = protocol.encode_fields(["255", "", "Request from non-LSF host rejected\n", ""])[4:]
    assert protocol.read_answer(KEY, "ab" * 16, refusal, "h:1") == ("", "Request from non-LSF host rejected\n", 255)


def test_peer_addresses_map_to_listed_hosts():
    gate = TcpGate(KEY)
    names = ["hostA.invalid", "127.0.0.1", "localhost"]
    assert gate.host_of("127.0.0.1", names) == "127.0.0.1"  # a row naming a host by address
    assert gate.host_of("::ffff:127.0.0.1", names) == "127.0.0.1"
    assert gate.host_of("10.9.9.9", names) is None
    assert gate.host_of("127.0.0.1", ["hostA.invalid"]) is None  # the list changed: resolved again
    assert normal_address("::1") == "::1"


def test_key_file_is_made_private_and_refused_when_open(tmp_path):
    key = ensure_key(str(tmp_path))
    p = tmp_path / protocol.KEY_FILE
    assert stat.S_IMODE(p.stat().st_mode) == 0o600 and len(key) == 64
    assert ensure_key(str(tmp_path)) == key  # kept, not replaced
    os.chmod(p, 0o640)
    with pytest.raises(protocol.KeyFileError, match=r"readable by others \(mode 640\); run 'chmod 600"):
        protocol.read_key(str(p))
    os.chmod(p, 0o600)
    p.write_text("short\n")
    with pytest.raises(protocol.KeyFileError, match="too short"):
        protocol.read_key(str(p))
    with pytest.raises(protocol.KeyFileError, match="cannot read the cluster key"):
        protocol.read_key(str(tmp_path / "nope"))


def test_shared_cluster_rule_reads_lsf_conf(tmp_path):
    conf = tmp_path / "lsf.conf"
    conf.write_text('LSF_MASTER_LIST="hostA hostB"   # candidates\n')
    assert client.shared_cluster(str(tmp_path)) is None  # no port: one machine
    conf.write_text('LSF_MASTER_LIST="hostA hostB"   # candidates\nLSB_MBD_PORT=6881 # port\nLSB_API_CONNTIMEOUT=3\n')
    assert client.shared_cluster(str(tmp_path)) == (["hostA", "hostB"], 6881, 3.0)
    conf.write_text("LSF_MASTER_LIST=hostA\nLSB_MBD_PORT=http\n")
    with pytest.raises(ValueError, match="LSB_MBD_PORT .* is not a port number: http"):
        client.shared_cluster(str(tmp_path))
    assert client.shared_cluster(None) is None
