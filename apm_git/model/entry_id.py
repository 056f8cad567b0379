"""Entry ids: `YYYY-MM-DD-<slug of the title>` (docs/design.md 2.1)."""
from __future__ import annotations

import re
import unicodedata

_NOT_SLUG = re.compile(r"[^a-z0-9]+")
MAX_SLUG = 60


def slugify(title: str) -> str:
    """Lowercase ASCII words joined by '-'.

    A title with letters or digits that have no ASCII form (e.g. 缓存) would lose them and
    could collide with another title, so such a slug ends with a short hash of the
    whole title.
    """
    if title.isascii():  # the common case, and NFKD leaves ASCII as it is
        folded, lost = title, False
    else:
        normalized = unicodedata.normalize("NFKD", title)
        folded = normalized.encode("ascii", "ignore").decode("ascii")
        lost = any(ord(char) > 127 and unicodedata.category(char)[0] in "LN" for char in normalized)
    slug = _NOT_SLUG.sub("-", folded.lower()).strip("-")
    if len(slug) > MAX_SLUG:
        slug = slug[:MAX_SLUG].rsplit("-", 1)[0] or slug[:MAX_SLUG]
    if lost or not slug:
        import hashlib  # rare; importing it costs every process that never needs it

        digest = hashlib.sha1(title.encode("utf-8")).hexdigest()[:8]
        slug = f"{slug}-{digest}" if slug else digest
    return slug


def entry_id(date: str, title: str) -> str:
    return f"{date}-{slugify(title)}"


ENTRY_ID = re.compile(r"\d{4}-\d{2}-\d{2}-[a-z0-9]+(?:-[a-z0-9]+)*")


def is_entry_id(text: str) -> bool:
    return ENTRY_ID.fullmatch(text) is not None
