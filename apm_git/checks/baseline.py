"""The findings baseline: what a workspace already held when apm-git adopted it (docs/baseline.md).

`memory/apm-baseline.json` is tracked, like detect-secrets' `.secrets.baseline`.  Each
finding it records is keyed on a fingerprint that survives lines moving and a file moving
into the archive: the check, the file's name (not its folder) and a hash of the line's
text.  A budget finding is keyed on the path and the line count recorded: it is known
while the file is no longer than that.  A suspected secret that a person marked
(`apm-git allow-secret PATH:LINE`) is a false positive: it never withholds a file again.

The checks, the hooks, flush and lint report only findings the baseline does not know.
The file never holds a secret or a line of memory: only hashes, paths and numbers.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from apm_git.errors import BaselineError
from apm_git.model import names
from apm_git.model.slotted import Slotted
from apm_git.model.snapshot import Finding, Snapshot

FILE = names.BASELINE  # memory-relative
VERSION = 1
BUDGET = "apm-budget"
SECRETS = "apm-no-secrets"
LINE_KEYED = frozenset({"apm-record-format", SECRETS})


# A NamedTuple and a plain class, not dataclasses: the pre-commit hook imports this module (apm_git.model.slotted).
class Known(NamedTuple):
    """One finding a person accepted (`apm-git baseline`), recorded by check, path and fingerprint."""

    check: str
    path: str  # where it was recorded (repo-relative)
    fingerprint: str = ""  # empty for a budget finding
    line: int = 0  # where it was recorded; informative only
    lines: int = 0  # budget findings: the line count recorded
    false_positive: bool = False  # a suspected secret that a person marked

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"check": self.check, "path": self.path}
        if self.check == BUDGET:
            data["lines"] = self.lines
        else:
            data.update(fingerprint=self.fingerprint, line=self.line)
        if self.false_positive:
            data["false_positive"] = True
        return data


class Baseline(Slotted):
    """The accepted findings of `.apm-baseline.json`, looked up by check, file name and fingerprint."""

    __slots__ = ("_budgets", "_keys", "known")

    def __init__(self, known: list[Known] | None = None) -> None:
        self.known = [] if known is None else known
        self._index()

    def _index(self) -> None:
        """The lookups by key (line-keyed and message-keyed findings) and by path (budget findings)."""
        self._keys = {(k.check, _name(k.path), k.fingerprint): k for k in self.known if k.check != BUDGET}
        self._budgets = {k.path: k.lines for k in self.known if k.check == BUDGET}

    def match(self, finding: Finding, text: str | None) -> Known | None:
        """The baseline's record of `finding` (on a file whose new text is `text`), or None when it is new."""
        if finding.hook == BUDGET:
            recorded = self._budgets.get(finding.path)
            if recorded is None or text is None or _count_lines(text) > recorded:
                return None
            return Known(BUDGET, finding.path, lines=recorded)
        return self._keys.get((finding.hook, _name(finding.path), fingerprint(finding, text)))

    def false_positive(self, finding: Finding, text: str | None) -> bool:
        known = self.match(finding, text)
        return known is not None and known.false_positive

    def add(self, findings: Iterable[Finding], texts: dict[str, str], *, false_positive: bool = False) -> int:
        """Record `findings` (texts: path -> the text they were found in); how many were not known yet.

        A budget finding already known is raised to the file's current line count.
        """
        added = 0
        for finding in findings:
            text = texts.get(finding.path)
            if finding.hook == BUDGET:
                lines = _count_lines(text) if text is not None else 0
                if self._budgets.get(finding.path, -1) >= lines:
                    continue
                self.known = [k for k in self.known if not (k.check == BUDGET and k.path == finding.path)]
                self.known.append(Known(BUDGET, finding.path, lines=lines))
            else:
                key = (finding.hook, _name(finding.path), fingerprint(finding, text))
                old = self._keys.get(key)
                if old is not None and (old.false_positive or not false_positive):
                    continue
                self.known = [k for k in self.known if k is not old]
                self.known.append(Known(finding.hook, finding.path, key[2], finding.line,
                                        false_positive=false_positive))
            added += 1
            self._index()
        return added

    def render(self) -> str:
        import json

        rows = sorted((k.as_dict() for k in self.known),
                      key=lambda row: (row["path"], row.get("line", 0), row["check"], row.get("fingerprint", "")))
        return json.dumps({"version": VERSION, "findings": rows}, indent=2, ensure_ascii=False) + "\n"


def fingerprint(finding: Finding, text: str | None) -> str:
    """A line's checks (record format, secrets): the check and the line's text, so the finding is the same
    wherever the line moves.  Whole-file checks (index, state, no loss…): the check and the message."""
    line = None
    if finding.hook in LINE_KEYED and text is not None and finding.line > 0:
        lines = text.split("\n")
        if finding.line <= len(lines):
            line = lines[finding.line - 1].strip()
    where = f"line\0{line}" if line is not None else f"{_name(finding.path)}\0{finding.message}"
    import hashlib  # here, as json below: a commit's hook with no baseline never loads them (3 ms)

    return hashlib.sha256(f"{finding.hook}\0{where}".encode()).hexdigest()[:20]


def parse(text: str | None) -> Baseline:
    if text is None or not text.strip():
        return Baseline()
    import json

    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise BaselineError(f"not valid JSON ({error.msg}, line {error.lineno})") from None
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("findings"), list):
        raise BaselineError(f'must be {{"version": {VERSION}, "findings": [...]}}')
    known = []
    for number, row in enumerate(data["findings"], start=1):
        try:
            known.append(Known(
                check=str(row["check"]), path=str(row["path"]), fingerprint=str(row.get("fingerprint", "")),
                line=int(row.get("line", 0)), lines=int(row.get("lines", 0)),
                false_positive=row.get("false_positive") is True,
            ))
        except (KeyError, TypeError, ValueError):
            raise BaselineError(f"finding {number} needs a check and a path (and a fingerprint or lines)") from None
    return Baseline(known)


def path_in(snap: Snapshot) -> str:
    return f"{snap.config.memory_dir}/{FILE}"


def of(snap: Snapshot) -> Baseline:
    """The baseline on the snapshot's new side (the work tree, the index or a commit)."""
    where = path_in(snap)
    try:
        return parse(snap.new.get(where))
    except BaselineError as error:
        raise BaselineError(
            f"{where}: {error}; fix it, restore it with `git checkout -- {where}`, "
            "or delete it to report every finding",
        ) from None


def split(snap: Snapshot, findings: Iterable[Finding]) -> tuple[list[Finding], list[Finding]]:
    """(new, known): the findings the baseline does not know, and those it does.

    The baseline file itself is never a finding: it holds hashes, which look random.
    """
    baseline = of(snap)
    own = path_in(snap)
    new: list[Finding] = []
    known: list[Finding] = []
    for finding in findings:
        if finding.path == own:
            continue
        (known if baseline.match(finding, snap.new.get(finding.path)) else new).append(finding)
    return new, known


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _count_lines(text: str) -> int:
    from apm_git.model.records import count_lines

    return count_lines(text)


def withheld_secrets(snap: Snapshot, secrets: Iterable[Finding]) -> tuple[list[Finding], list[Finding]]:
    """Of the suspected secrets, those that withhold their file (every one not marked a false positive),
    and of these the ones the baseline does not know yet (worth saying again)."""
    known = of(snap)
    withhold = [finding for finding in secrets if not known.false_positive(finding, snap.new.get(finding.path))]
    return withhold, [finding for finding in withhold if known.match(finding, snap.new.get(finding.path)) is None]


def unreadable(snap: Snapshot) -> str | None:
    """Why the snapshot's baseline cannot be read (it is then left out of the snapshot), or None."""
    try:
        of(snap)
    except BaselineError as error:
        snap.new.pop(path_in(snap), None)
        return str(error)
    return None
