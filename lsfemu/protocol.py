"""lsfemu's wire format: frames, requests and replies, and the signed TCP frames.

Standard library only, and cheap to import: every command call loads it (see
lsfemu.client). A frame is a 4-byte big-endian length and a sequence of fields,
each a 4-byte length and UTF-8 bytes (`encode_fields`). No json or socket
module here: they pull in re and enum, which cost more than a whole command may
take.

TCP (a shared cluster): a request is a frame of bytes fields
[TCP_MAGIC, user, timestamp in ms, nonce, mac, body], where body is
encode_request's frame without its length and
    mac = HMAC-SHA256(key, fields(TCP_MAGIC, user, timestamp, nonce) + body).
The answer is [rc, out, err, mac] with
    mac = HMAC-SHA256(key, fields(TCP_ANSWER, nonce) + fields(rc, out, err));
a refusal the daemon cannot or will not sign has an empty mac and rc 255.
(No `from __future__`: a module of its own to import on every command; no `os`
either, which costs a command ~3 ms of start-up: the TCP paths import it.)
"""

PROTOCOL = 1
#: exit status in the answer of a master candidate that is not (or no longer) the
#: master (a shared cluster, docs/semantics.md): the client tries the next host
#: of LSF_MASTER_LIST instead of printing the answer
NOT_MASTER_RC = 250


def encode_fields(fields: list[str]) -> bytes:
    parts = []
    for f in fields:
        b = f.encode("utf-8", "surrogateescape")
        parts.append(len(b).to_bytes(4, "big"))
        parts.append(b)
    body = b"".join(parts)
    return len(body).to_bytes(4, "big") + body


def split_fields(body: bytes) -> list[bytes]:
    """The raw fields of a frame made by encode_fields (without the frame length). Raises ValueError."""
    out = []
    append, from_bytes = out.append, int.from_bytes  # (locals: a request has ~50 fields, the environment's)
    i, n = 0, len(body)
    while i < n:
        j = i + 4
        if j > n:
            raise ValueError("truncated field length")
        i = j + from_bytes(body[i:j], "big")
        if i > n:
            raise ValueError("truncated field")
        append(body[j:i])
    return out


def decode_fields(body: bytes) -> list[str]:
    """Inverse of encode_fields (without the frame length). Raises ValueError."""
    return [f.decode("utf-8", "surrogateescape") for f in split_fields(body)]


def encode_request(req: dict) -> bytes:
    """[version, cmd, cwd, has_stdin, stdin, tty, argc, *argv, *"KEY=VALUE"]."""
    stdin = req.get("stdin")
    fields = ["lsfemu/2", req["cmd"], req["cwd"], "1" if stdin is not None else "0", stdin or "",
              "1" if req.get("tty") else "0", str(len(req["argv"]))]
    fields += req["argv"]
    fields += [f"{k}={v}" for k, v in req["env"].items()]
    return encode_fields(fields)


def decode_request(body: bytes) -> dict:
    f = decode_fields(body)
    if len(f) < 7 or f[0] != "lsfemu/2" or not f[6].isdigit():
        raise ValueError("not an lsfemu request")
    argc = int(f[6])
    if 7 + argc > len(f):
        raise ValueError("truncated argv")
    env = {}
    for item in f[7 + argc:]:
        k, _, v = item.partition("=")
        env[k] = v
    return {"v": 2, "cmd": f[1], "cwd": f[2], "stdin": f[4] if f[3] == "1" else None,
            "tty": f[5] == "1", "argv": f[7:7 + argc], "env": env}


def encode_response(out: str, err: str, rc: int) -> bytes:
    return encode_fields([str(rc), out, err])


def recv_exact(sock, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            raise ConnectionError("connection closed by the daemon")
        buf += chunk
    return bytes(buf)


def recv_frame(sock) -> bytes:
    return recv_exact(sock, int.from_bytes(recv_exact(sock, 4), "big"))


TCP_MAGIC = "lsfemu-tcp/1"
TCP_ANSWER = "lsfemu-tcp/1 answer"
KEY_FILE = "lsfemu.key"  # in LSF_ENVDIR, beside lsf.conf; mode 0600
KEY_MIN_LEN = 32  # bytes of key material (lsfemu writes 64 hex digits)


class KeyFileError(RuntimeError):
    """The cluster key file is missing, unreadable, too open or too short."""


def join(folder: str, name: str) -> str:
    """os.path.join(folder, name) for a relative *name*, without os."""
    return folder + name if not folder or folder.endswith("/") else f"{folder}/{name}"


def key_path(envdir: str) -> str:
    return join(envdir, KEY_FILE)


def write_key(envdir: str) -> bool:
    """Write a new cluster key (0600, 64 hex digits) when the file does not exist;
    whether it wrote one. Raises OSError."""
    import os  # off the command path (see the module's top)

    try:
        fd = os.open(key_path(envdir), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as f:
        f.write(os.urandom(32).hex() + "\n")
    return True


def read_key(path: str) -> bytes:
    """The cluster's secret: the file's stripped bytes. The file must be readable
    by its owner only (like ssh's private keys): a key others can read signs for
    anyone."""
    import os  # TCP only (see the module's top)

    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as e:
        raise KeyFileError(f"cannot read the cluster key {path}: {e.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if mode & 0o077:
            raise KeyFileError(f"the cluster key {path} is readable by others (mode {mode & 0o777:o}); "
                               f"run 'chmod 600 {path}'")
        data = os.read(fd, 4096).strip()
    finally:
        os.close(fd)
    if len(data) < KEY_MIN_LEN:
        raise KeyFileError(f"the cluster key {path} is too short ({len(data)} bytes; at least {KEY_MIN_LEN})")
    return data


def raw_fields(parts: list[bytes]) -> bytes:
    return b"".join(len(b).to_bytes(4, "big") + b for b in parts)


def _b(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def request_mac(key: bytes, user: str, ts: str, nonce: str, body: bytes) -> str:
    # TCP signing only: kept off the start-up of commands on the Unix socket
    import hashlib
    import hmac

    return hmac.new(key, raw_fields([_b(TCP_MAGIC), _b(user), _b(ts), _b(nonce)]) + body, hashlib.sha256).hexdigest()


def answer_mac(key: bytes, nonce: str, rc: str, out: str, err: str) -> str:
    # TCP signing only: kept off the start-up of commands on the Unix socket
    import hashlib
    import hmac

    msg = raw_fields([_b(TCP_ANSWER), _b(nonce)]) + raw_fields([_b(rc), _b(out), _b(err)])
    return hmac.new(key, msg, hashlib.sha256).hexdigest()


def sign_request(key: bytes, user: str, body: bytes, ts: str | None = None, nonce: str | None = None) -> tuple[bytes, str]:
    """The framed TCP request and its nonce (the answer is signed over it)."""
    import os  # TCP only, as above
    import time

    ts = ts if ts is not None else str(int(time.time() * 1000))
    nonce = nonce if nonce is not None else os.urandom(16).hex()
    mac = request_mac(key, user, ts, nonce, body)
    payload = raw_fields([_b(TCP_MAGIC), _b(user), _b(ts), _b(nonce), _b(mac), body])
    return len(payload).to_bytes(4, "big") + payload, nonce


def read_answer(key: bytes, nonce: str, frame: bytes, where: str) -> tuple[str, str, int]:
    """(out, err, rc) of a TCP answer whose signature holds; an unsigned refusal
    (rc 255, nothing done) is shown as is; anything else is not believed."""
    import hmac  # TCP only, as above

    f = decode_fields(frame)
    if len(f) != 4 or not f[0].lstrip("-").isdigit():
        raise ValueError("malformed answer")
    rc, out, err, mac = f
    if mac and hmac.compare_digest(mac, answer_mac(key, nonce, rc, out, err)):
        return out, err, int(rc)
    if not mac and rc == "255" and not out:
        return "", err, 255
    return "", f"lsfemu: the answer from {where} is not signed with this cluster's key; ignored\n", 255
