"""The `--json` output of load, remember, search, embed and hit: version 1, documented in docs/json.md.

Each output is declared once below (apm_git/present/declare.py) and built from that declaration: a field
is the result's attribute of its name.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from apm_git.model import vocabulary as words
from apm_git.present.declare import Bool, Enum, Int, List, Maybe, Num, Obj, Shape, Str
from apm_git.present.parts import DATE, SCOPE, WITHHELD_SECTIONS

if TYPE_CHECKING:
    from apm_git.commands.hit import HitResult
    from apm_git.commands.load import LoadResult
    from apm_git.commands.remember import RememberResult
    from apm_git.commands.search import SearchResult
    from apm_git.operations.embedding import EmbedResult


LOAD = Shape(
    "load",
    "apm-git load --format json",
    "What progressive loading chose, why, and each file's text.",
    Obj(
        {
            "mode": Enum(words.LoadMode),
            "scope": Str("^(dreaming|main|group:[a-z0-9][a-z0-9._-]{0,63})$"),
            "intent": Maybe(Str()),
            "budget": Int(0),
            "encoding": Str(),
            "session": Maybe(Str()),
            "group": Maybe(Str()),
            "room": Maybe(Str()),
            "routes": List(Obj({"file": Str(), "priority": Str(), "hits": List(Str()), "reason": Str()})),
            "domain": Maybe(Str()),
            "domain_hits": List(Str()),
            "recall": Maybe(Str()),
            "guide": Maybe(Str()),
            "files": List(
                Obj(
                    {
                        "path": Str(),
                        "role": Enum(words.LoadRole),
                        "priority": Maybe(Str()),
                        "tokens": Int(0),
                        "file_tokens": Int(0),
                        "text": Str(),
                        "cut": Maybe(Str()),
                        "why": Maybe(Str()),
                    },
                ),
            ),
            "skipped": List(
                Obj({"path": Str(), "role": Enum(words.LoadRole), "priority": Maybe(Str()), "reason": Str()}),
            ),
            "warnings": List(Str()),
            "last_flush": Maybe(Str()),
            "tokens": Int(0),
            "withheld": WITHHELD_SECTIONS,
        },
    ),
)

REMEMBER = Shape(
    "remember",
    "apm-git remember --json",
    "What the write-back wrote (not committed yet).",
    Obj(
        {
            "scope": Str(SCOPE),
            "action": Enum(words.RememberAction),
            "file": Str(),
            "line": Maybe(Int(0)),
            "entry_id": Maybe(Str()),
            "detail": Str(),
            "created": List(Str()),
            "rows_added": List(Str()),
            "rows_deprecated": List(Int(0)),
        },
    ),
)

SEARCH = Shape(
    "search",
    "apm-git search --json",
    "The best-matching sections, each with its best passage.",
    Obj(
        {
            "query": Str(),
            "where": Str(),
            "method": Enum(words.SearchMethod),
            "hits": List(
                Obj(
                    {
                        "entry_id": Maybe(Str()),
                        "file": Str(),
                        "line": Int(0, doc="The best passage's first line."),
                        "last": Int(0, doc="The best passage's last line."),
                        "section": Int(0, doc="The first line of the passage's section."),
                        "heading": Str(),
                        "trail": Str(doc="The headings above the section, outermost first, joined by ' › '."),
                        "date": Maybe(Str(), doc="The nearest date above the passage (YYYY-MM-DD), or null."),
                        "snippet": Str(),
                        "archived": Bool(),
                        "score": Num(),
                        "matched": List(Str()),
                    },
                ),
            ),
            "total": Int(0),
            "files_searched": Int(0),
            "skipped": List(Str()),
        },
    ),
)

EMBEDDED = Obj(
    {
        "where": Str(doc="'memory' or 'group NAME'."),
        "path": Str(doc="The vectors file, beside the search index under .git."),
        "model": Str(),
        "passages": Int(0, doc="Passages in the search index."),
        "embedded": Int(0, doc="Passages embedded by this run."),
        "reused": Int(0, doc="Passages whose vectors were there already."),
        "dropped": Int(0, doc="Vectors of texts that no passage holds any longer."),
        "cpu_seconds": Num(doc="CPU time spent embedding."),
        "rebuilt": Maybe(Str(), doc="Why the vectors on disk could not be used (they were made anew), or null."),
    },
)

EMBED = Shape(
    "embed",
    "apm-git embed --json",
    "The meaning layer's vectors: how many passages were embedded now, kept from before, and dropped.",
    EMBEDDED,
)

HIT = Shape(
    "hit",
    "apm-git hit --json",
    "The entries counted, and the ids that are not live entries.",
    Obj(
        {
            "hits": List(
                Obj(
                    {
                        "entry_id": Str(),
                        "file": Str(),
                        "line": Int(0),
                        "hit_count": Int(0),
                        "last_referenced": Str(DATE),
                        "previous_hit_count": Int(0),
                        "previous_last_referenced": Str(),
                    },
                ),
            ),
            "misses": List(Obj({"entry_id": Str(), "reason": Str()})),
            "warnings": List(Str()),
        },
    ),
)


def load_json(result: LoadResult) -> dict[str, Any]:
    return LOAD.build(result)


def remember_json(result: RememberResult) -> dict[str, Any]:
    return REMEMBER.build(result)


def search_json(result: SearchResult) -> dict[str, Any]:
    return SEARCH.build(result)


def embed_json(result: EmbedResult) -> dict[str, Any]:
    return EMBED.build(result)


def hit_json(result: HitResult) -> dict[str, Any]:
    return HIT.build(result)
