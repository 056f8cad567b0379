"""The text of `apm-git status`: short whatever the memory's size (totals, the worst few, and the
command that lists the rest)."""
from __future__ import annotations

from apm_git.commands.status import Findings, StatusResult
from apm_git.model.vocabulary import KEEPS, RESOLVE
from apm_git.printable import one_line

WORST = 5  # findings, and files over budget, shown by name


def status_text(result: StatusResult, *, all_files: bool = False) -> str:
    lines = _files(result, all_files)
    lines += _findings(result.findings)
    if result.in_conflict:
        lines.append(f"Entries in conflict: {len(result.in_conflict)} (settle each with `{RESOLVE}`: the version "
                     "that goes is recorded as superseded or merged, never lost)")
        lines += [f"  {item.file}:{item.line}: {item.entry}: `apm-git resolve {item.entry} --keep "
                  f"{'|'.join(KEEPS)}` (Conflicts: {item.conflicts})" for item in result.in_conflict[:WORST]]
        if len(result.in_conflict) > WORST:
            lines.append(f"  ... and {len(result.in_conflict) - WORST} more (`apm-git --json status` lists them)")
    lines.append("Last flush:")
    lines += [f"  {scope}: {_when(stamp)}" for scope, stamp in result.last_flush.items()]
    own = [item for item in result.pending_items if not (isinstance(item, dict) and item.get("source") == "flush")]
    pending = [f"{item.file}:{item.line}: {item.title} ({item.entry})" for item in result.pending_records]
    pending += [_pending(item) for item in own]
    lines.append(f"Pending items: {len(pending)}")
    lines += [f"  - {item}" for item in pending[:WORST]]
    if len(pending) > WORST:
        lines.append(f"  ... and {len(pending) - WORST} more (`apm-git --json status` lists them)")
    for due in result.due:
        when = "due now" if due.due_now else f"next due {due.next_due}"
        lines.append(f"{due.stage}: {when} (last run: {_when(due.last_run)})")
    for state in result.vectors:
        said = f"{state.passages} passages, " + (f"{state.without_vector} without a vector yet (the next `dream` "
                                                  "or `apm-git embed` embeds them)" if state.without_vector
                                                  else "each with its vector")
        lines.append(f"Vectors ({state.where}): {state.note or said}")
    if result.uncommitted:
        lines.append(f"Uncommitted memory changes: {len(result.uncommitted)} file(s); run `apm-git flush`")
    if result.not_set_up:
        lines.append(f"This clone is not set up (lacks {' and '.join(result.not_set_up)}); run `apm-git setup`")
    return "\n".join(one_line(line) for line in lines)  # a file name holding a line break stays on its line


def _files(result: StatusResult, all_files: bool) -> list[str]:
    if all_files:
        lines = ["Files (lines / budget):"]
        for item in result.files:
            budget = f"{item.lines:>4} / {item.budget}" if item.budget is not None else f"{item.lines:>4}"
            lines.append(f"  {budget:<12} {item.file}{'  OVER BUDGET' if item.over else ''}")
        return lines
    over = sorted((item for item in result.files if item.over),
                  key=lambda item: (-(item.lines - (item.budget or 0)), item.file))
    total = sum(item.lines for item in result.files)
    lines = [f"Files: {len(result.files)} memory file(s), {total} lines; {len(over)} over budget"]
    lines += [f"  {item.lines:>4} / {item.budget:<4} {item.file}" for item in over[:WORST]]
    if len(over) > WORST:
        lines.append(f"  ... and {len(over) - WORST} more (`apm-git status --files` lists every file)")
    return lines


def _findings(findings: Findings) -> list[str]:
    if findings.problem:
        return [f"Findings: the checks could not run: {findings.problem}"]
    lines = [f"Findings that hold now: {len(findings.new)}{_totals(findings.totals(findings.new))}"]
    lines += [f"  {finding}" for finding in findings.worst(WORST)]
    if len(findings.new) > WORST:
        lines.append(f"  ... and {len(findings.new) - WORST} more (`apm-git lint --all` lists them)")
    if findings.known:
        lines.append(f"Known from the baseline: {len(findings.known)}{_totals(findings.totals(findings.known))}; "
                     "`apm-git lint --all --baseline-too` lists them")
    if findings.withheld:
        lines.append(f"Withheld from every commit (suspected secrets): {len(findings.withheld)} line(s)")
        lines += [f"  {finding.path}:{finding.line}" for finding in findings.withheld[:WORST]]
        if len(findings.withheld) > WORST:
            lines.append(f"  ... and {len(findings.withheld) - WORST} more (`apm-git lint --all --baseline-too`)")
        lines.append("  remove each secret, or mark a false positive with `apm-git allow-secret PATH:LINE`; "
                     "then `apm-git flush`")
    return lines


def _totals(totals: dict[str, int]) -> str:
    return f" ({', '.join(f'{hook} {count}' for hook, count in totals.items())})" if totals else ""


def _when(stamp: str | None) -> str:
    if not stamp:
        return "never"
    return stamp[:16].replace("T", " ")


def _pending(item: object) -> str:
    if isinstance(item, dict):
        return str(item.get("finding") or item.get("text") or item)
    return str(item)
