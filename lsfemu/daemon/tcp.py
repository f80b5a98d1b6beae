"""Commands from other hosts: the daemon's TCP side (LSB_MBD_PORT in lsf.conf).

Owns what makes a TCP request trustworthy, before it reaches `Daemon.serve`:
- the peer's address must belong to a host of the cluster's host list
  (lsf.cluster.<name>, Host section, SERVER 0 rows included: LSF's client hosts);
  names are resolved with the system resolver (so /etc/hosts works), and a row
  may name a host by its IP address;
- the cluster key (`LSF_ENVDIR/lsfemu.key`, mode 0600; made here on first start)
  signs every request: HMAC-SHA256 over the whole request and its user, a
  timestamp within MAX_SKEW of the daemon's clock, a nonce never seen before.
The wire format is in lsfemu/protocol.py (both ends share it). The threat model
is in README ("A shared cluster").
"""

from __future__ import annotations

import hmac
import logging
import re
import socket
import threading
import time

from lsfemu import protocol

log = logging.getLogger("lsfemu.daemon")

MAX_SKEW = 300  # seconds a request's timestamp may be off the daemon's clock (Kerberos' default)
REFUSAL_READ_LIMIT = 1 << 20  # bytes read from a host that is refused anyway
RESOLVE_AGAIN = 30.0  # seconds before an unknown address makes the host list resolve again
NON_LSF_HOST = "Request from non-LSF host rejected"  # LSF's LSBE_NOLSF_HOST
_USER = re.compile(r"^[^\s:/\x00]{1,256}$")
_NONCE = re.compile(r"^[0-9a-f]{32}$")


def ensure_key(envdir: str) -> bytes:
    """The cluster key, written (0600, 64 hex digits) when the file does not exist.
    Raises protocol.KeyFileError (too open, too short, unreadable) or OSError."""
    path = protocol.key_path(envdir)
    if protocol.write_key(envdir):
        log.info("wrote a new cluster key %s; copy it (mode 0600) to the client hosts", path)
    return protocol.read_key(path)


def normal_address(addr: str) -> str:
    """IPv4 peers of a dual-stack socket arrive as ::ffff:a.b.c.d."""
    return addr[7:] if addr.startswith("::ffff:") and "." in addr else addr


class TcpGate:
    """Admission of TCP requests: known host, valid signature, fresh, not replayed."""

    def __init__(self, key: bytes, accept_since: float | None = None):
        self.key = key
        # Requests stamped before this instant are refused: this daemon does not know
        # the nonces its predecessor saw. A daemon that becomes master later (a
        # standby taking over) sets it to the moment it takes over.
        self.accept_since = time.time() if accept_since is None else accept_since
        self._seen: dict[str, float] = {}  # nonce -> expiry (time.time())
        self._seen_lock = threading.Lock()
        self._hosts: dict[str, str] = {}  # address -> host name
        self._hosts_of: tuple[str, ...] | None = None
        self._resolved_at = 0.0
        self._hosts_lock = threading.Lock()

    # -- which host is this peer ---------------------------------------------
    def host_of(self, addr: str, names: list[str]) -> str | None:
        """The cluster host whose name resolves to `addr`, or None."""
        addr = normal_address(addr)
        with self._hosts_lock:
            key = tuple(names)
            stale = time.monotonic() - self._resolved_at > RESOLVE_AGAIN
            if self._hosts_of != key or (addr not in self._hosts and stale):
                self._hosts = self._resolve(names)
                self._hosts_of = key
                self._resolved_at = time.monotonic()
            return self._hosts.get(addr)

    @staticmethod
    def _resolve(names: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for name in names:
            try:
                infos = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
            except (OSError, UnicodeError):
                continue  # a virtual host of the emulation: no machine behind it
            for info in infos:
                out.setdefault(normal_address(str(info[4][0])), name)
        return out

    # -- is this request signed, fresh and new -------------------------------
    def verify(self, raw: bytes, now: float | None = None, not_before: float | None = None) -> tuple[str, str, dict] | str:
        """(user, nonce, request) of a good request, else the reason to refuse it.
        `not_before`: a later start of service than accept_since (a takeover)."""
        try:
            f = protocol.split_fields(raw)
        except ValueError:
            return "not an lsfemu request"
        if len(f) != 6 or f[0] != protocol.TCP_MAGIC.encode():
            return "not an lsfemu request"
        try:
            user, ts, nonce, mac = (x.decode("utf-8") for x in f[1:5])
        except UnicodeDecodeError:
            return "not an lsfemu request"
        body = f[5]
        if not hmac.compare_digest(mac.encode(), protocol.request_mac(self.key, user, ts, nonce, body).encode()):
            return "the request is not signed with this cluster's key"
        # Signed by a key holder from here on; what follows stops replays.
        if not ts.isdigit() or not _NONCE.match(nonce) or not _USER.match(user):
            return "malformed signed request"
        now = time.time() if now is None else now
        sent = int(ts) / 1000.0
        if abs(now - sent) > MAX_SKEW:
            return (f"the request's timestamp is {abs(now - sent):.0f} s away from the master's clock "
                    f"(at most {MAX_SKEW} s; are the hosts' clocks synchronized?)")
        if sent < max(self.accept_since, not_before or 0.0):
            return "the request was signed before this daemon started serving; send it again"
        with self._seen_lock:
            if nonce in self._seen:
                return "the request was already received (a replay)"
            if len(self._seen) > 4096:
                self._seen = {n: t for n, t in self._seen.items() if t > now}
            self._seen[nonce] = sent + MAX_SKEW + 1
        try:
            req = protocol.decode_request(body)
        except ValueError:
            return "malformed signed request"
        return user, nonce, req

    def answer(self, nonce: str, out: str, err: str, rc: int) -> bytes:
        r = str(rc)
        return protocol.encode_fields([r, out, err, protocol.answer_mac(self.key, nonce, r, out, err)])


def refusal(why: str) -> bytes:
    """An unsigned answer: one line, rc 255 (the client shows it; nothing was done)."""
    return protocol.encode_fields(["255", "", why.rstrip("\n") + "\n", ""])
