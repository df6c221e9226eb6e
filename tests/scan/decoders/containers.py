"""Wrappers that put bytes inside the containers real material uses: compressions, archives,
encodings. Shared by the recall battery, the properties and the limit tests."""

from __future__ import annotations

import base64
import bz2
import gzip
import io
import lzma
import tarfile
import zipfile


def zipped(members: dict[str, bytes], *, stored: bool = False) -> bytes:
    buf = io.BytesIO()
    method = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def tarred(members: dict[str, bytes], mode: str = "w") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as t:  # type: ignore[call-overload]
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def gzipped(data: bytes) -> bytes:
    return gzip.compress(data)


def bzipped(data: bytes) -> bytes:
    return bz2.compress(data)


def xzipped(data: bytes) -> bytes:
    return lzma.compress(data)


def b64(text: str, *, urlsafe: bool = False) -> str:
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return encode(text.encode()).decode()


def utf16(text: str, order: str = "le", *, bom: bool = True) -> bytes:
    data = text.encode(f"utf-16-{order}")
    if not bom:
        return data
    return ("\ufeff".encode(f"utf-16-{order}")) + data


def mime_b64(data: bytes) -> str:
    """Base64 wrapped at 76 columns, as e-mail carries it."""
    encoded = base64.b64encode(data).decode()
    return "\r\n".join(encoded[i : i + 76] for i in range(0, len(encoded), 76))
