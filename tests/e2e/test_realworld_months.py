"""Months of an agent's life on each real workspace (issue 23): adopt, import, write journal items, flush and
dream as the simulated clock moves (APM_GIT_NOW), then `lint --from-ref <adoption>` passes and nothing the
workspace held or the agent wrote is lost.

The budgets are tight (`TIGHT`, in the workspace's apm.yaml before `init` adopts it), so that three months do
what a year does with the defaults: files adopted over their budget, journals over theirs before `import`,
category files with no room, an INDEX.md too small to list every journal.  The workspaces are in
`../shared/realworld/cases/` (or $APM_GIT_REALWORLD_CASES); without them the test skips, naming the reason.
Commands run in-process, each workspace on its own copy in tmp_path.  A session every `EVERY` days keeps the
test short while each stage still runs: deep sleep and REM are due at every session, and journals pass
`journals.archive_after_days` before the last one.
"""
from __future__ import annotations

import datetime as dt
import os
import random
import shutil
from pathlib import Path

import pytest

from apm_git import clock, git
from apm_git.commands.dream import dream
from apm_git.commands.flush import flush
from apm_git.commands.hit import hit
from apm_git.commands.import_ import import_apply, import_plan_json
from apm_git.commands.init import init
from apm_git.commands.journal import add
from apm_git.commands.lint import lint
from apm_git.dreaming.items import collect_items
from apm_git.model import names
from apm_git.model.dated import journal_date
from apm_git.model.records import parse
from apm_git.model.vocabulary import DECISION_VALUES, ENTRY_KINDS
from apm_git.store.repo import MemoryRepo, open_repo
from tests.realworld import ENV_CASES, cases_dir

CASES = cases_dir()
NAMES = sorted(path.name for path in CASES.iterdir() if path.is_dir()) if CASES else []
SESSIONS = 8
EVERY = 12  # days between sessions: eight sessions span three months
ITEMS = 6  # journal items a session
TIGHT = {"INDEX.md": 45, "decisions.md": 40, "lessons.md": 40, "project-context.md": 30, "people.md": 25,
         "tools-config.md": 25, "journal": 40}

pytestmark = pytest.mark.skipif(not NAMES, reason=f"the real workspaces are absent (../shared/realworld/cases); "
                                                  f"set {ENV_CASES}")


def entry_ids(repo: MemoryRepo) -> tuple[set[str], set[str], set[str]]:
    """The ids of the live entries and journal items, of the archived ones, and of those folded into another."""
    live: set[str] = set()
    archived: set[str] = set()
    merged: set[str] = set()
    for rel in repo.markdown_files():
        text = repo.read(rel) or ""
        day = journal_date(rel.rsplit("/", 1)[-1])
        if day is None and "## [" not in text:
            continue  # no record in it
        doc = parse(text)
        ids = {item.entry_id for item in collect_items(rel, day, doc)} if day else {r.id for r in doc.entries}
        (archived if rel.startswith(f"{names.ARCHIVE}/") else live).update(ids)
        for record in doc.entries:
            merged.update(part.strip() for part in (record.field("Merged") or "").split(",") if part.strip())
    return live, archived, merged


def every_line(root: Path) -> set[str]:
    """The stripped non-blank lines of every memory file, archive included."""
    found: set[str] = set()
    for path in [root / "MEMORY.md", *(root / "memory").rglob("*.md")]:
        if path.is_file():
            found.update(line.strip() for line in path.read_text("utf-8", "replace").splitlines() if line.strip())
    return found


def newest_journal(root: Path) -> dt.date:
    days = [journal_date(path.name) for path in root.rglob("*.md")]
    return max((day for day in days if day is not None), default=dt.date(2026, 1, 1))


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_months_on_a_real_workspace_stay_lint_clean_and_lose_nothing(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert CASES is not None
    root = tmp_path / "ws"
    shutil.copytree(CASES / name, root, symlinks=True, ignore=shutil.ignore_patterns("SOURCE.txt"))
    held = every_line(root)
    start = newest_journal(root) + dt.timedelta(days=1)
    monkeypatch.setenv(clock.ENV_NOW, f"{start.isoformat()}T08:00:00+00:00")
    (root / "apm.yaml").write_text("budgets:\n" + "".join(f"  {key}: {value}\n" for key, value in TIGHT.items()))
    init(root, install=False)
    repo = open_repo(root)
    adoption = git.log(root, ["HEAD"], grep="Apm-Trigger: adopt")  # the commit of the files as found
    assert len(adoption) == 1, f"{name}: one adoption commit"
    written, archived_before, _ = entry_ids(repo)
    written |= archived_before
    imported = import_apply(repo, import_plan_json(repo))  # right after adoption: free-form sections as records
    written |= {str(item["id"]) for item in imported.plan["import"]}
    rng = random.Random(name)
    for session in range(SESSIONS):
        day = start + dt.timedelta(days=session * EVERY)
        os.environ[clock.ENV_NOW] = f"{day.isoformat()}T10:00:00+00:00"
        for number in range(ITEMS):
            kind = rng.choice(ENTRY_KINDS)
            title = f"Session {session} item {number} about {rng.choice(('deploys', 'the cache', 'billing'))}"
            written.add(add(repo, f"{title}: what was learned.", kind=kind, title=title,
                            value=rng.choice(DECISION_VALUES)).entry_id)
        if session % 3 == 2:  # an entry gets used: a flush that carries only a hit
            flush(repo, trigger="session-end", session=f"s{session}")
            live = sorted(entry_ids(repo)[0] & written)
            hit(repo, [rng.choice(live)])
        flush(repo, trigger="session-end", session=f"s{session}")
        os.environ[clock.ENV_NOW] = f"{day.isoformat()}T21:00:00+00:00"
        result = dream(repo)
        assert result.refused is None, f"{name} on {day}: {result.refused}"
    ran = lint(repo, from_ref=adoption[0].sha, to_ref="HEAD")
    assert ran.findings == [], f"{name}: lint --from-ref <adoption>:\n" + "\n".join(map(str, ran.findings[:10]))
    live, archived, merged = entry_ids(repo)
    lost = sorted(written - live - archived - merged)
    assert lost == [], f"{name}: {len(lost)} entries lost, e.g. {lost[:5]}"
    now = every_line(root)
    quoted = "\n".join(now)
    gone = [line for line in held - now if not (line.startswith("#") and f'heading "{line}"' in quoted)]
    assert gone == [], f"{name}: {len(gone)} lines lost, e.g. {gone[:3]}"
    withheld = {line.split(": ", 1)[1].split(" (")[0] for line in adoption[0].message.splitlines()
                if line.startswith("Apm-Withheld: ")}  # suspected secrets: left on disk, uncommitted
    assert {change.path for change in git.status(root, ["memory"])} <= withheld, f"{name}: the rest is committed"
