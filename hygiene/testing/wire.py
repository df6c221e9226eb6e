"""Reading HTTP/1.1 requests off a raw socket, bounded in size and by the connection's time."""

from __future__ import annotations

from hygiene.testing.misbehaviours import Conn

MAX_HEAD = 64 * 1024
MAX_BODY = 1 << 20


def read_head(conn: Conn) -> bytes | None:
    """The request line and headers (without the blank line), or None (closed, too big)."""
    data = b""
    try:
        conn.sock.settimeout(0.1)
    except OSError:  # closed already (the server stopping it between two requests)
        return None
    while b"\r\n\r\n" not in data:
        if not conn.live() or len(data) > MAX_HEAD:
            return None
        try:
            chunk = conn.sock.recv(4096)
        except TimeoutError:
            continue
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    conn.pending = rest
    return head


def read_request(conn: Conn) -> tuple[str, str, dict[str, str], bytes] | None:
    """(method, target, lower-cased headers, body) of the next request, or None (closed, bad)."""
    head = read_head(conn)
    if head is None:
        return None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        return None
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    body = conn.pending
    try:
        length = min(max(0, int(headers.get("content-length", "0") or 0)), MAX_BODY)
    except ValueError:
        return None
    while len(body) < length and conn.live():
        try:
            chunk = conn.sock.recv(length - len(body))
        except TimeoutError:
            continue
        except OSError:
            return None
        if not chunk:
            return None
        body += chunk
    return parts[0], parts[1], headers, body[:length]


__all__ = ["MAX_BODY", "MAX_HEAD", "read_head", "read_request"]
