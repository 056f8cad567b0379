"""The `--json` output of proposals, accept, reject, what `--propose` prints, and a person's curation (edit,
restore, `hit --commit`): version 1, declared once and built from the declaration (see apm_git/present/shapes.py).
"""
from __future__ import annotations

from typing import Any

from apm_git.model import vocabulary as words
from apm_git.present.declare import Bool, Enum, Int, List, Maybe, Obj, Shape, Str
from apm_git.present.parts import SHA, TRAILERS

PROPOSAL = Obj({
    "name": Str(), "branch": Str(), "commit": Str(SHA), "base": Str(SHA), "stage": Enum(words.DueStage), "date": Str(),
    "subject": Str(), "behind": Int(0), "items": List(Obj({"id": Str(), "verb": Str(), "detail": Str()})),
})
PROPOSALS = Shape("proposals", "apm-git proposals --json", "The open proposals, each with its items.",
                  Obj({"proposals": List(PROPOSAL)}))

MADE = Obj({
    "stage": Enum(words.DueStage), "subject": Str(), "proposal": Maybe(Str()), "commit": Maybe(Str(SHA)),
    "kept": Bool(), "replaced": List(Str()), "flushed": Maybe(Str()), "trailers": TRAILERS,
})
PROPOSED = Shape(
    "proposed",
    "apm-git deep-sleep|rem|dream --propose --json",
    "The proposals a run made: one per stage that ran; `proposal` null when there was nothing to propose.",
    Obj({"proposed": List(MADE), "refused": Maybe(Str())}),
)

ACCEPT = Shape(
    "accept",
    "apm-git accept --json",
    "The commit that landed the accepted items of a proposal.",
    Obj(
        {
            "proposal": Str(),
            "commit": Maybe(Str(SHA)),
            "subject": Str(),
            "accepted": List(Str()),
            "dropped": List(Str()),
            "flushed": Maybe(Str()),
            "trailers": TRAILERS,
        },
    ),
)

REJECT = Shape(
    "reject",
    "apm-git reject --json",
    "The proposal dropped, and the commit its branch held.",
    Obj({"rejected": Str(), "commit": Str(SHA)}),
)

CURATE = Shape(
    "curate",
    "apm-git edit|restore|hit --commit --json",
    "A person's change to entries as one commit (`edit` without --from: the record shown, no commit).",
    Obj(
        {
            "verb": Enum(("edit", "hit", "restore", "show",)),
            "entries": List(Str()),
            "files": List(Str()),
            "commit": Maybe(Str(SHA)),
        },
    ),
)


def proposed_json(made: list[Any], refused: str | None = None) -> dict[str, Any]:
    """The proposals a run made (operations/proposals.py), each with its stage's result."""
    return PROPOSED.build(None, proposed=[MADE.build(item.result, {
        "proposal": item.name, "commit": item.commit, "kept": item.kept, "replaced": item.replaced}) for item in made],
        refused=refused)


def proposals_json(found: list[Any]) -> dict[str, Any]:
    return PROPOSALS.build(None, proposals=[PROPOSAL.build(proposal, {"items": [
        {"id": item.key, "verb": item.verb, "detail": item.detail} for item in proposal.items]}) for proposal in found])


def accept_json(done: Any) -> dict[str, Any]:
    return ACCEPT.build(done.result, proposal=done.name, accepted=done.taken, dropped=done.dropped)


def reject_json(gone: Any) -> dict[str, Any]:
    return REJECT.build(None, rejected=gone.name, commit=gone.commit)


def curated_json(result: Any) -> dict[str, Any]:
    return CURATE.build(result, entries=result.entry_ids)


def shown_json(entry_id: str) -> dict[str, Any]:
    """`edit` without --from: the record printed, nothing committed."""
    return CURATE.build(None, verb="show", entries=[entry_id], files=[], commit=None)
