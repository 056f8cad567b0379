"""Parts more than one `--json` output holds, declared once (apm_git/present/declare.py)."""
from __future__ import annotations

from apm_git.model import vocabulary as words
from apm_git.present.declare import Bool, Enum, From, Int, List, Maybe, Obj, Str

SHA = "^[0-9a-f]{40}$"
DATE = "^\\d{4}-\\d{2}-\\d{2}$"
SCOPE = "^(all|main|group:[a-z0-9][a-z0-9._-]{0,63})$"

WITHHELD_SECTIONS = List(
    Obj({"path": Str(), "line": Int(1), "heading": Maybe(Str()), "kinds": List(Str())}),
    doc=(
        "Sections kept uncommitted for a suspected secret; never the secret (heading null: the heading holds it, "
        "\"\": the text before the first heading)."
    ),
)
FINDING = Obj({"path": Str(), "line": Int(0), "hook": Enum(words.CheckId), "message": Str()})
TRACKED = Obj(
    {
        "id": Str(),
        "agent": Enum(words.TrackedAgent),
        "folder": Str(),
        "project": Maybe(Str()),
        "identity": Maybe(Str()),
        "remote": Maybe(Str()),
        "active": Bool(),
        "history": From(Str(), lambda tracked: str(tracked.git_dir)),
    },
    doc="The tracked folder: its id, agent, folder, project, identity, remote, and where its history is.",
)
CAP_REPORT = Obj({
    "file": Str(), "lines": Int(0), "bytes": Int(0), "max_lines": From(Int(0), lambda cap: cap.limits.lines),
    "max_bytes": From(Int(0), lambda cap: cap.limits.bytes),
    "loaded_lines": Int(0), "over": Bool(), "cut": List(Obj({"heading": Str(), "line": Int(1), "partly": Bool()})),
})
CAP = Maybe(
    CAP_REPORT,
    doc="Claude Code's loading cap of MEMORY.md (null for the other agents, or when the file is absent).",
)
SNAPSHOT_WITHHELD = List(Obj({"path": Str(), "line": Int(0), "why": Str()}))
HOOKS_WIRED = List(
    Obj({"agent": Enum(words.TrackedAgent), "path": Str(), "events": List(Str()), "written": Bool(), "what": Str()}),
)
OVER_BUDGET = List(
    Obj({"path": Str(), "lines": Int(0), "budget": Int(0)}),
    doc="each journal a merge put over its budget, as the last merge that did left it",
)
TRAILER = Obj({"key": Str(), "value": Str()})
# A list of [a, b] string pairs.
PAIRS = List(List(Str(), size=2))
TRAILERS = PAIRS.about("[key, value] of each Apm-* trailer")
