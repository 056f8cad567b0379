"""Consolidation as a proposal: --propose commits beside the user's branch; accept (all or part), reject, and
a stale proposal refused, each leaving the branch lint-clean with every entry on record (operations/proposals.py)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from apm_git.model import trailers
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git, run_apm

MARCH = "2026-03-01T10:00:00+00:00"
JUNE = "2026-06-01T10:00:00+00:00"
BRANCH = "apm-git/proposals/rem-2026-06-01"


def record(day: str, title: str, *, value: str = "LOW", used: str | None = None, body: str = "Some body.",
           kind: str = "lesson") -> str:
    return (f"## [{day}] {title}\n- Tags: {kind}\n- Fitness: last_referenced={used or day}, hit_count=0, "
            f"decision_value={value}\n- Body: {body}\n\n")


LESSONS = "# Lessons\n\n" + "".join(record(f"2026-02-0{i}", f"Old lesson {i}") for i in range(1, 5)) + record(
    "2026-02-20", "Fresh lesson", value="HIGH", used="2026-05-30")
OLD = [f"2026-02-0{i}-old-lesson-{i}" for i in range(1, 5)]


class Memory:
    def __init__(self, repo: MemoryRepo, run_cli: Invoke) -> None:
        self.repo, self.run_cli = repo, run_cli

    def cli(self, *args: str, at: str = JUNE, code: int = 0) -> str:
        ran = self.run_cli("--repo", str(self.repo.root), *args, env={"APM_GIT_NOW": at})
        assert ran.exit_code == code, (args, ran.stdout, ran.stderr)
        return ran.stdout + ran.stderr

    def head(self) -> str:
        return git(self.repo.root, "rev-parse", "HEAD").strip()

    def ids(self, rev: str = "HEAD") -> set[str]:
        """Every entry id the commit holds, live or archived."""
        found = set()
        for path in git(self.repo.root, "ls-tree", "-r", "--name-only", rev, "--", "memory").split():
            if path.endswith(".md"):
                for day, title in re.findall(r"^## \[(\d{4}-\d\d-\d\d)\] (.+)$", git(self.repo.root, "show",
                                                                                      f"{rev}:{path}"), re.M):
                    found.add(f"{day}-{title.lower().replace(' ', '-')}")
        return found

    def lint_clean(self, rev: str = "HEAD") -> None:
        self.cli("lint", "--from-ref", f"{rev}~1", "--to-ref", rev)


def memory(repo: MemoryRepo, run_cli: Invoke, lessons: str = LESSONS) -> Memory:
    (repo.memory / "lessons.md").write_text(lessons)
    made = Memory(repo, run_cli)
    made.cli("flush", at=MARCH)
    return made


@pytest.mark.slow
def test_propose_commits_beside_the_branch_and_accept_all_lands_it(repo: MemoryRepo, run_cli: Invoke) -> None:
    mem = memory(repo, run_cli)
    before, tree = mem.head(), (repo.memory / "lessons.md").read_text()
    said = mem.cli("rem", "--propose")
    assert f"proposed on branch {BRANCH}" in said and "your branch unchanged" in said
    assert mem.head() == before and (repo.memory / "lessons.md").read_text() == tree
    assert git(repo.root, "status", "--porcelain", "--", "memory") == ""
    assert git(repo.root, "rev-parse", f"{BRANCH}~1").strip() == before
    mem.cli("lint", "--from-ref", "HEAD", "--to-ref", BRANCH)
    listed = json.loads(mem.cli("proposals", "--json"))["proposals"]
    assert [(p["name"], [i["id"] for i in p["items"]]) for p in listed] == [("rem-2026-06-01", OLD)]
    assert "archived 4 item" not in mem.cli("rem", "--propose")  # the same plan again keeps the open proposal
    said = mem.cli("accept", "rem-2026-06-01")
    assert said.startswith("apm-git: accepted 4 item(s) of rem-2026-06-01 as ")
    assert git(repo.root, "rev-parse", "HEAD~1").strip() == before
    message = git(repo.root, "log", "-1", "--format=%B")
    assert ("Apm-Proposal", "rem-2026-06-01 (accepted 4 of 4 items)") in trailers.parse(message)
    assert git(repo.root, "branch", "--list", BRANCH) == ""
    assert mem.ids() == mem.ids("HEAD~1")
    assert all(entry not in (repo.memory / "lessons.md").read_text() for entry in ("Old lesson 1", "Old lesson 4"))
    mem.lint_clean()


@pytest.mark.slow
def test_accept_part_drops_an_item_and_only_takes_some(repo: MemoryRepo, run_cli: Invoke) -> None:
    mem = memory(repo, run_cli)
    mem.cli("rem", "--propose")
    said = mem.cli("accept", "rem-2026-06-01", "--drop", OLD[0], "--drop", OLD[1])
    assert "accepted 2 item(s) of rem-2026-06-01" in said and "dropped 2" in said
    lessons = (repo.memory / "lessons.md").read_text()
    assert "Old lesson 1" in lessons and "Old lesson 2" in lessons and "Old lesson 3" not in lessons
    assert [value.split()[0] for key, value in trailers.parse(git(repo.root, "log", "-1", "--format=%B"))
            if key == "Apm-Archive"] == OLD[2:]
    mem.lint_clean()
    mem.cli("rem", "--propose")
    mem.cli("accept", "rem-2026-06-01", "--only", OLD[1])
    assert "Old lesson 1" in (repo.memory / "lessons.md").read_text()
    assert "Old lesson 2" not in (repo.memory / "lessons.md").read_text()
    mem.lint_clean()
    assert OLD[0] in mem.ids() and OLD[3] in mem.ids()


@pytest.mark.slow
def test_an_unknown_item_or_half_a_pair_is_a_usage_error(repo: MemoryRepo, run_cli: Invoke) -> None:
    newer = record("2026-05-20", "Old lesson 1", value="HIGH", used="2026-05-30", body="Another body.")
    mem = memory(repo, run_cli, LESSONS.replace("# Lessons\n\n", "# Lessons\n\n" + newer))
    said = mem.cli("rem", "--propose")
    assert "Apm-Supersede: 2026-02-01-old-lesson-1 -> 2026-05-20-old-lesson-1" in said
    before = mem.head()
    said = mem.cli("accept", "rem-2026-06-01", "--drop", "2026-01-01-no-such", code=2)
    assert "2026-01-01-no-such: not an item of rem-2026-06-01" in said
    mem.cli("accept", "rem-2026-06-01", "--only", OLD[1], code=0)
    assert mem.head() != before
    mem.lint_clean()


@pytest.mark.slow
def test_a_stale_proposal_is_refused_in_one_line_and_nothing_changes(repo: MemoryRepo, run_cli: Invoke) -> None:
    mem = memory(repo, run_cli)
    mem.cli("rem", "--propose")
    mem.cli("hit", "--commit", OLD[0])  # used again since: REM would not archive it now
    before = mem.head()
    said = mem.cli("accept", "rem-2026-06-01", code=1)
    assert said.strip() == (
        f"apm-git: proposal rem-2026-06-01 is stale: rem on the current memory no longer proposes to archive {OLD[0]}; "
        "nothing was changed — propose again (`apm-git rem --propose`), or leave it out "
        f"(--drop {OLD[0]})")
    assert mem.head() == before and git(repo.root, "branch", "--list", BRANCH).strip()
    mem.cli("accept", "rem-2026-06-01", "--drop", OLD[0])
    assert "Old lesson 1" in (repo.memory / "lessons.md").read_text()
    mem.lint_clean()


def test_reject_drops_the_branch_and_dream_waits(repo: MemoryRepo, run_cli: Invoke) -> None:
    mem = memory(repo, run_cli)
    assert "proposed on branch" in mem.cli("dream", "--propose")
    names = [p["name"] for p in json.loads(mem.cli("proposals", "--json"))["proposals"]]
    for name in names:
        assert f"rejected {name}" in mem.cli("reject", name)
    assert git(repo.root, "for-each-ref", "refs/heads/apm-git/") == ""
    assert "nothing due" in mem.cli("dream", "--propose")
    assert "no open proposal rem-2026-06-01" in mem.cli("reject", "rem-2026-06-01", code=1)


def test_the_setting_makes_proposals_the_default(repo: MemoryRepo, run_cli: Invoke) -> None:
    config = repo.root / "apm.yaml"
    config.write_text(config.read_text().replace("  propose: false", "  propose: true"))
    mem = memory(repo, run_cli)
    before = mem.head()
    assert "proposed on branch" in mem.cli("rem")
    assert mem.head() == before
    mem.cli("reject", "rem-2026-06-01")
    assert "committed" in mem.cli("rem", "--no-propose")
    assert mem.head() != before


@pytest.mark.slow
def test_two_proposals_and_a_flush_between_lose_no_entry(repo: MemoryRepo, run_cli: Invoke) -> None:
    mem = memory(repo, run_cli)
    mem.cli("journal", "add", "Retry the flaky upload twice", "--kind", "lesson", "--title", "Flaky upload",
            at="2026-05-31T09:00:00+00:00")
    mem.cli("flush", at="2026-05-31T09:00:00+00:00")
    said = mem.cli("dream", "--propose")
    assert "deep-sleep-2026-06-01" in said and "rem-2026-06-01" in said
    everything = mem.ids()
    (repo.memory / "decisions.md").write_text((repo.memory / "decisions.md").read_text() + "\n" + record(
        "2026-06-01", "Written meanwhile", kind="decision", value="HIGH"))
    mem.cli("flush")
    everything |= {"2026-06-01-written-meanwhile"}
    mem.cli("accept", "rem-2026-06-01")
    mem.lint_clean()
    mem.cli("accept", "deep-sleep-2026-06-01")
    mem.lint_clean()
    assert everything <= mem.ids()
    assert "Flaky upload" in (repo.memory / "lessons.md").read_text()
    assert "Written meanwhile" in (repo.memory / "decisions.md").read_text()


def test_proposals_need_a_listed_name(repo: MemoryRepo, run_cli: Invoke) -> None:
    mem = memory(repo, run_cli)
    said = mem.cli("accept", "../../HEAD", code=1)
    assert "no open proposal ../../HEAD" in said
    assert not list(Path(repo.git_dir).glob("refs/heads/apm-git/**/*"))


@pytest.mark.slow
def test_a_proposal_made_as_apm_git_says_so_once(repo: MemoryRepo, run_cli: Invoke, tmp_path: Path) -> None:
    """No git identity here: the proposal is committed as apm-git and the command says so, as a flush does."""
    memory(repo, run_cli)
    git(repo.root, "config", "user.useConfigOnly", "true")  # no identity may be guessed: git refuses to commit
    home = tmp_path / "no-identity-home"
    home.mkdir()
    ran = run_apm("rem", "--propose", cwd=repo.root, env={"HOME": str(home), "APM_GIT_NOW": JUNE})
    assert ran.exit_code == 0, ran.stderr
    assert ran.stderr.count("git has no user identity here") == 1, ran.stderr
    assert git(repo.root, "log", "-1", "--format=%ae", BRANCH).strip() == "apm-git@localhost"
