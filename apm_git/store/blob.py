"""git's object id of a file's bytes (`git hash-object`), computed without running git."""
from __future__ import annotations

import hashlib


def blob_id(data: bytes) -> str:
    digest = hashlib.sha1(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()
