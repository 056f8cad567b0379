"""The date a heading or a file name carries, as an ISO date: `2026-05-13`, `2026/05/13`, `8 May 2023`,
`May 8, 2023`, `8 мая 2023`, `8. Mai 2023`.  A passage is shown with the nearest date above it, so "yesterday"
in a session's line can be resolved."""
from __future__ import annotations

import datetime as dt
import functools
import re

_EN = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
       "november", "december")
_RU = ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября",
       "декабря")
_DE = ("januar", "februar", "marz", "april", "mai", "juni", "juli", "august", "september", "oktober", "november",
       "dezember")
_MONTHS = {name: number for names in (_EN, _RU, _DE) for number, name in enumerate(names, start=1)}
_MONTHS.update({name[:3]: number for number, name in enumerate(_EN, start=1)})
_MONTHS["sept"] = 9
_NAME = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ISO = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_DAY_MONTH = re.compile(rf"(?<!\d)(\d{{1,2}})(?:st|nd|rd|th|\.)?\s+({_NAME})\.?,?\s+(\d{{4}})(?!\d)")
_MONTH_DAY = re.compile(rf"\b({_NAME})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})(?!\d)")


def _iso(year: str, month: int, day: str) -> str | None:
    try:
        return dt.date(int(year), month, int(day)).isoformat()
    except ValueError:
        return None


@functools.lru_cache(maxsize=4096)
def find(text: str) -> str | None:
    """The first date in `text` (a heading, a file name), as YYYY-MM-DD; None when it holds none."""
    if not any(char.isdigit() for char in text):
        return None
    for match in _ISO.finditer(text):
        found = _iso(match[1], int(match[2]), match[3])
        if found:
            return found
    lower = text.lower().replace("ä", "a")
    for match in _DAY_MONTH.finditer(lower):
        found = _iso(match[3], _MONTHS[match[2]], match[1])
        if found:
            return found
    for match in _MONTH_DAY.finditer(lower):
        found = _iso(match[3], _MONTHS[match[1]], match[2])
        if found:
            return found
    return None
