"""Conservation across a merge of two machines' versions of a tracked folder: every section and every
fact that either side added or changed since their common version is in the result (docs/tracking.md,
"Every machine").  What one side deleted and the other left as it was stays deleted: that deletion is
in the history of the side that made it, where `restore` finds it.  Pure: texts in, losses out.
"""
from __future__ import annotations

from collections.abc import Mapping

from apm_git.tracking.facts import place
from apm_git.tracking.outline import OutlinePart, outline


def _parts(text: str | None) -> dict[tuple[str, int], OutlinePart]:
    found: dict[tuple[str, int], OutlinePart] = {}
    seen: dict[str, int] = {}
    for part in outline(text or ""):
        seen[part.heading] = seen.get(part.heading, 0) + 1
        found[(part.heading, seen[part.heading])] = part
    return found


def lost_in_merge(base: Mapping[str, str], ours: Mapping[str, str], theirs: Mapping[str, str],
                  merged: Mapping[str, str | None]) -> list[str]:
    """`file › heading` of each section, and `file › heading: fact` of each fact, that a side added or
    changed and the merged tree lacks."""
    lost: list[str] = []
    for side in (ours, theirs):
        for path, text in sorted(side.items()):
            if base.get(path) == text:
                continue
            was = _parts(base.get(path))
            result = merged.get(path)
            kept = _parts(result)
            kept_facts = {fact.key for part in kept.values() for fact in part.facts}
            kept_headings = {heading for heading, _ in kept}
            for key, part in _parts(text).items():
                old = was.get(key)
                if old is not None and old.text.rstrip() == part.text.rstrip():
                    continue
                if key[0] not in kept_headings:
                    lost.append(place(path, key[0] or "(top)"))
                    continue
                old_facts = {fact.key for fact in old.facts} if old else set()
                lost += [f"{place(path, key[0])}: {fact.text.splitlines()[0].strip()}" for fact in part.facts
                         if fact.key not in old_facts and fact.key not in kept_facts]
    return list(dict.fromkeys(lost))
