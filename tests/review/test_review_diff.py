"""`apm-git diff` on real histories: journal, flush, hit, deep sleep, REM (supersede, merge, proven), a hand
deletion committed with plain git (the loss flag), a forget, and a range with a merge commit; in all three
formats, checked against what each command did."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from apm_git.commands.flush import flush
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git
from tests.records import record, write

JOURNAL_DAY = "2026-05-20"
REM_DAY = "2026-06-01T09:00:00+00:00"
OLD = "2026-03-01"


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def at(day: str) -> dict[str, str]:
    return {"APM_GIT_NOW": day}


class Story:
    """The commits of one real history, by what each did."""

    def __init__(self, repo: MemoryRepo, run_cli: Invoke) -> None:
        self.repo = repo
        self.run_cli = run_cli
        self.commits: dict[str, str] = {"init": head(repo.root)}

    def apm(self, *args: str, day: str = JOURNAL_DAY, expect: int = 0) -> str:
        ran = self.run_cli("--repo", str(self.repo.root), *args, env=at(day))
        assert ran.exit_code == expect, (args, ran.stdout, ran.stderr)
        return ran.stdout

    def mark(self, name: str) -> str:
        self.commits[name] = head(self.repo.root)
        return self.commits[name]

    def diff(self, *args: str, expect: int = 0) -> str:
        return self.apm("diff", *args, expect=expect)

    def diff_json(self, *args: str, expect: int = 0) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.diff("--format", "json", *args, expect=expect))
        return data


def by_id(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["id"]: entry for entry in data["entries"]}


def changes(entry: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {change["field"]: (change["before"], change["after"]) for change in entry["changes"]}


@pytest.fixture
def story(repo: MemoryRepo, run_cli: Invoke) -> Story:
    """journal -> flush -> deep sleep -> category entries flushed -> hit + flush -> REM."""
    story = Story(repo, run_cli)
    story.apm("journal", "add", "Await the token refresh before retrying", "--kind", "lesson",
              "--title", "Token refresh race")
    story.apm("journal", "add", "Use Redis for the session cache", "--kind", "decision",
              "--title", "Redis for sessions", "--value", "HIGH")
    story.apm("journal", "add", "Ask about the deploy window", "--kind", "pending", "--title", "Deploy window")
    story.apm("flush", "-m", "journal")
    story.mark("journal")
    story.apm("deep-sleep", day="2026-05-24")
    story.mark("deep-sleep")
    write(repo.memory, "people.md",
          record("2026-05-01", "Cache everything", hits=5, last="2026-05-30"),
          record("2026-01-10", "Old server config", value="LOW", last=OLD),
          record("2026-04-01", "Use Redis", hits=2, body="Redis for sessions."),
          record("2026-04-03", "Use Redis", hits=1, body="Redis for sessions.", last="2026-05-02"),
          record("2026-05-01", "API versioning", body="In the header."),
          record("2026-05-20", "API versioning", body="In the path."),
          *[record("2026-05-20", f"Healthy note {i}", last="2026-05-30", hits=1) for i in range(8)])
    story.apm("flush", "-m", "people", day="2026-05-30")
    story.mark("people")
    story.apm("hit", "2026-05-20-healthy-note-3", day="2026-05-31")
    story.apm("flush", day="2026-05-31")
    story.mark("hit")
    story.apm("rem", day=REM_DAY)
    story.mark("rem")
    return story


@pytest.mark.slow
def test_deep_sleep_promotions_with_their_reasons(story: Story) -> None:
    data = story.diff_json(f"{story.commits['journal']}..{story.commits['deep-sleep']}")
    entries = by_id(data)
    lesson = entries["2026-05-20-token-refresh-race"]
    assert (lesson["status"], lesson["from"], lesson["to"], lesson["detail"]) == (
        "promoted", "memory/2026-05-20.md", "memory/lessons.md", "lesson")
    assert entries["2026-05-20-redis-for-sessions"]["to"] == "memory/decisions.md"
    assert entries["2026-05-20-redis-for-sessions"]["detail"] == "high-value"
    assert "2026-05-20-deploy-window" not in entries  # pending: stays in the journal, unchanged
    assert data["summary"]["entries"]["promoted"] == 2
    assert data["summary"]["entries"]["loss"] == 0
    assert [commit["trigger"] for commit in data["commits"]] == ["deep-sleep"]
    text = story.diff(f"{story.commits['journal']}..{story.commits['deep-sleep']}")
    assert text.splitlines()[0].endswith(": 2 promoted, 7 files") or "2 promoted" in text.splitlines()[0]
    assert ("promoted    2026-05-20-token-refresh-race  memory/2026-05-20.md -> memory/lessons.md "
            '"Token refresh race"  (lesson)') in text


@pytest.mark.slow
def test_a_hit_shows_field_by_field(story: Story) -> None:
    data = story.diff_json(f"{story.commits['people']}..{story.commits['hit']}")
    (entry,) = data["entries"]
    assert entry["id"] == "2026-05-20-healthy-note-3"
    assert entry["status"] == "edited"
    assert changes(entry) == {"last_referenced": ("2026-05-30", "2026-05-31"), "hit_count": ("1", "2")}
    text = story.diff(f"{story.commits['people']}..{story.commits['hit']}")
    assert "edited      2026-05-20-healthy-note-3  memory/people.md:" in text
    assert "last_referenced 2026-05-30→2026-05-31, hit_count 1→2" in text


@pytest.mark.slow
def test_rem_proven_merged_superseded_archived(story: Story) -> None:
    rem = story.commits["rem"]
    data = story.diff_json(f"{rem}~1..{rem}")
    entries = by_id(data)
    status = {entry: item["status"] for entry, item in entries.items()}
    assert status == {
        "2026-05-01-cache-everything": "proven",
        "2026-04-01-use-redis": "merged",
        "2026-04-03-use-redis": "edited",
        "2026-05-01-api-versioning": "superseded",
        "2026-05-20-api-versioning": "edited",
        "2026-01-10-old-server-config": "archived",
    }
    assert changes(entries["2026-05-01-cache-everything"])["proven"] == ("no", "yes")
    assert changes(entries["2026-05-01-cache-everything"])["decision_value"] == ("MEDIUM", "HIGH")
    assert entries["2026-04-01-use-redis"]["detail"] == "into 2026-04-03-use-redis"
    survivor = changes(entries["2026-04-03-use-redis"])
    assert survivor["hit_count"] == ("1", "3")
    assert survivor["merged"] == (None, "2026-04-01-use-redis")
    assert entries["2026-05-01-api-versioning"]["detail"] == "by 2026-05-20-api-versioning"
    assert entries["2026-05-01-api-versioning"]["to"] == "memory/archive/2026-06.md"
    assert changes(entries["2026-05-20-api-versioning"])["supersedes"] == (
        None, "2026-05-01-api-versioning — In the header.")
    old = entries["2026-01-10-old-server-config"]
    assert (old["from"], old["to"], old["detail"]) == ("memory/people.md", "memory/archive/2026-06.md", "score 8")
    files = {file["path"]: file for file in data["files"]}
    assert files["memory/people.md"]["budget"] == 100
    assert files["memory/people.md"]["lines_after"] < files["memory/people.md"]["lines_before"]
    assert files["memory/archive/2026-06.md"]["status"] == "added"
    assert data["summary"]["entries"]["loss"] == 0

    markdown = story.diff("--format", "markdown", f"{rem}~1..{rem}")
    assert markdown.startswith("### apm-git memory diff\n")
    assert "1 proven" in markdown and "1 merged" in markdown and "1 superseded" in markdown
    assert "LOST" not in markdown
    assert "`2026-01-10-old-server-config` Old server config — `memory/people.md` → `memory/archive/2026-06.md` " \
           "(score 8)" in markdown
    assert "| `memory/people.md` | modified |" in markdown


@pytest.mark.slow
def test_a_body_edit_is_a_word_diff(story: Story) -> None:
    people = story.repo.memory / "people.md"
    people.write_text(people.read_text().replace("- Body: In the path.", "- Body: In the URL path, always."))
    data = story.diff_json()
    (entry,) = data["entries"]
    assert entry["id"] == "2026-05-20-api-versioning"
    (body,) = entry["changes"]
    assert body["field"] == "body"
    assert [(piece["op"], piece["text"]) for piece in body["words"]] == [
        ("=", "In the "), ("+", "URL "), ("=", "path"), ("+", ", always"), ("=", "."),
    ]
    assert "body: In the {+URL +}path{+, always+}." in story.diff()
    assert "In the <ins>URL </ins>path<ins>, always</ins>." in story.diff("--format", "markdown")
    assert story.diff("--cached").startswith("apm-git diff HEAD..the index: no memory changes")
    git(story.repo.root, "add", "memory/people.md")
    assert by_id(story.diff_json("--cached"))["2026-05-20-api-versioning"]["status"] == "edited"


@pytest.mark.slow
def test_a_hand_deletion_committed_with_git_is_a_loss_and_exits_1(story: Story) -> None:
    root = story.repo.root
    people = story.repo.memory / "people.md"
    text = people.read_text()
    start = text.index("## [2026-05-20] Healthy note 5")
    end = text.index("## ", start + 3)
    people.write_text(text[:start] + text[end:])
    git(root, "commit", "-q", "--no-verify", "-am", "tidy people.md")
    rem, tidy = story.commits["rem"], head(root)
    data = story.diff_json(f"{rem}..{tidy}", expect=1)
    (entry,) = data["entries"]
    assert (entry["id"], entry["status"], entry["from"], entry["to"]) == (
        "2026-05-20-healthy-note-5", "loss", "memory/people.md", None)
    assert data["summary"]["entries"]["loss"] == 1
    assert data["commits"] == [{"commit": tidy, "subject": "tidy people.md", "trigger": None, "merge": False}]
    text = story.diff(f"{rem}..{tidy}", expect=1)
    assert text.splitlines()[1].startswith("LOST        2026-05-20-healthy-note-5  memory/people.md:")
    markdown = story.diff("--format", "markdown", f"{rem}..{tidy}", expect=1)
    lost_at, entries_at = markdown.index("#### ⚠️ Lost"), markdown.find("#### Entries")
    assert "**⚠️ 1 LOST**" in markdown.split("\n\n")[1]
    assert lost_at < markdown.index("`2026-05-20-healthy-note-5`")
    assert entries_at == -1 or entries_at > lost_at
    # the same deletion forgotten on purpose is no loss
    git(root, "revert", "--no-edit", "HEAD")
    story.apm("forget", "2026-05-20-healthy-note-5", "--reason", "a test note", day=REM_DAY)
    forgotten = story.diff_json(f"{rem}..HEAD")
    assert [(entry["id"], entry["status"], entry["detail"]) for entry in forgotten["entries"]] == [
        ("2026-05-20-healthy-note-5", "forgotten", "a test note")]


@pytest.mark.slow
def test_a_range_with_a_merge_commit(story: Story) -> None:
    """Deep sleep on a branch, a hand edit on main, merged: the end states and every commit's trailers."""
    root, repo = story.repo.root, story.repo
    story.apm("journal", "add", "Pin the CI runner image", "--kind", "lesson", "--title", "Pin the runner",
              day="2026-06-02")
    story.apm("flush", day="2026-06-02")
    base = story.mark("branch-point")
    git(root, "checkout", "-q", "-b", "side")
    story.apm("deep-sleep", day="2026-06-06")
    git(root, "checkout", "-q", "main")
    (repo.memory / "tools-config.md").write_text(
        (repo.memory / "tools-config.md").read_text() + "\n## Shell aliases\n\nk = kubectl\n")
    git(root, "commit", "-q", "--no-verify", "-am", "aliases by hand")
    git(root, "merge", "-q", "--no-ff", "--no-edit", "side")
    merged = head(root)
    data = story.diff_json(f"{base}..{merged}")
    entries = by_id(data)
    assert entries["2026-06-02-pin-the-runner"]["status"] == "promoted"
    assert entries["2026-06-02-pin-the-runner"]["detail"] == "lesson"  # from the branch's trailer
    assert {(s["file"], s["heading"], s["status"]) for s in data["sections"]} == {
        ("memory/tools-config.md", "## Shell aliases", "added")}
    assert len(data["commits"]) == 3
    assert [commit["merge"] for commit in data["commits"]].count(True) == 1
    assert {commit["trigger"] for commit in data["commits"]} == {None, "deep-sleep"}
    markdown = story.diff("--format", "markdown", f"{base}..{merged}")
    assert "3 commits (1 by apm-git, 1 merge)" in markdown
    # A...B: from where the branch left main
    side = story.diff_json(f"{story.commits['branch-point']}...side")
    assert {entry["status"] for entry in side["entries"]} == {"promoted"}
    assert side["sections"] == []


@pytest.mark.slow
def test_the_markdown_stays_under_githubs_comment_limit(repo: MemoryRepo, run_cli: Invoke) -> None:
    body = "A long decision body that says a great deal about caching, retries, queues and deploys. " * 3
    write(repo.memory, "decisions.md", *[record("2026-05-01", f"Decision number {i}", body=body)
                                         for i in range(1500)])
    flush(repo)
    decisions = repo.memory / "decisions.md"
    text = decisions.read_text()
    start = text.index("## [2026-05-01] Decision number 0\n")
    end = text.index("## ", start + 3)
    decisions.write_text(text[:start] + text[end:].replace(body, body + "Changed. "))
    ran = run_cli("--repo", str(repo.root), "diff", "--format", "markdown")
    assert ran.exit_code == 1, ran.stderr  # the deleted entry is a loss
    markdown = ran.stdout
    assert len(markdown) <= 65_536
    assert len(markdown) > 50_000  # filled up to the limit, not cut early
    assert markdown.index("`2026-05-01-decision-number-0`") < markdown.index("#### Entries")  # loss first
    assert "Left out to stay under GitHub's comment limit: " in markdown
    left = markdown.split("Left out to stay under GitHub's comment limit: ", 1)[1]
    shown = markdown.count("\n- `2026-05-01-decision-number-")
    assert f"{1500 - shown} entries" in left.split(".**")[0]
    assert markdown.count("<details>") == markdown.count("</details>")
    assert "Run `apm-git diff` for all of it." in markdown


def test_bad_revisions_are_one_line_usage_errors(repo: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(repo.root), "diff", "nosuch..HEAD")
    assert ran.exit_code == 2
    assert ran.stderr.startswith("apm-git: 'nosuch' names no commit here; fetch it first")
    ran = run_cli("--repo", str(repo.root), "diff", "--cached", "HEAD~1..HEAD")
    assert ran.exit_code == 2 and "--cached compares the index with one commit" in ran.stderr
    ran = run_cli("--repo", str(repo.root), "diff", "--json", "--format", "text")
    assert ran.exit_code == 2 and "give one" in ran.stderr
    ran = run_cli("--repo", str(repo.root), "diff", "--format", "yaml")
    assert ran.exit_code == 2


def test_a_journal_archived_whole_a_hand_move_and_a_moved_section(repo: MemoryRepo, run_cli: Invoke) -> None:
    story = Story(repo, run_cli)
    story.apm("journal", "add", "Ask about the deploy window", "--kind", "pending", "--title", "Deploy window")
    (repo.memory / "people.md").write_text("# People\n\n## Notes\n\nBob owns deploys.\nAlice owns billing.\n")
    story.apm("flush")
    before = story.mark("journal")
    story.apm("deep-sleep", day="2026-06-20")  # 31 days later: the journal holds only a pending item
    data = story.diff_json(f"{before}..HEAD")
    assert data["entries"] == []
    (moved,) = [file for file in data["files"] if file["status"] == "renamed"]
    assert (moved["from"], moved["path"], moved["entries_moved"]) == (
        "memory/2026-05-20.md", "memory/archive/journals/2026-05-20.md", 1)
    assert "memory/2026-05-20.md -> memory/archive/journals/2026-05-20.md" in story.diff(f"{before}..HEAD")
    # by hand, in the work tree: an entry moved from the archived journal to a category file, a section moved
    archived = repo.memory / "archive/journals/2026-05-20.md"
    text = archived.read_text()
    start = text.index("## [2026-05-20] Deploy window")
    (repo.memory / "decisions.md").write_text((repo.memory / "decisions.md").read_text() + "\n" + text[start:])
    archived.write_text(text[:start])
    people = (repo.memory / "people.md").read_text()
    notes = people[people.index("## Notes"):]
    (repo.memory / "people.md").write_text(people.replace(notes, ""))
    (repo.memory / "project-context.md").write_text((repo.memory / "project-context.md").read_text() + "\n" + notes)
    data = story.diff_json()
    (entry,) = data["entries"]
    assert (entry["id"], entry["status"], entry["from"], entry["to"]) == (
        "2026-05-20-deploy-window", "moved", "memory/archive/journals/2026-05-20.md", "memory/decisions.md")
    assert [(s["status"], s["from"], s["file"], s["heading"]) for s in data["sections"]] == [
        ("moved", "memory/people.md", "memory/project-context.md", "## Notes")]


def documented_json() -> list[dict[str, Any]]:
    text = (Path(__file__).resolve().parents[2] / "docs" / "review.md").read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in text.split("```json\n")[1:]]
    return [json.loads(block) for block in blocks]


def shape_of(value: Any) -> Any:
    """The keys of every object, recursively; a list by the union of its items' shapes."""
    if isinstance(value, dict):
        return {key: shape_of(item) for key, item in value.items()}
    if isinstance(value, list):
        merged: Any = None
        for item in value:
            merged = union(merged, shape_of(item))
        return [merged] if value else []
    return None


def union(one: Any, other: Any) -> Any:
    if isinstance(one, dict) and isinstance(other, dict):
        return {key: union(one.get(key), other.get(key)) for key in [*one, *(k for k in other if k not in one)]}
    if isinstance(one, list) and isinstance(other, list):
        return [union(one[0] if one else None, other[0] if other else None)] if one or other else []
    return one if one is not None else other


@pytest.mark.slow
def test_the_json_is_the_shape_docs_review_md_documents(story: Story) -> None:
    diff_doc, log_doc = documented_json()
    people = story.repo.memory / "people.md"
    people.write_text(people.read_text().replace("- Body: In the path.", "- Body: In the URL path.")
                      + "\n## Shell aliases\n\nk = kubectl\n")
    rem = story.commits["rem"]
    data = story.diff_json(f"{rem}~1")
    assert data["version"] == diff_doc["version"] == 1
    real, documented = shape_of(data), shape_of(diff_doc)
    assert real == documented
    log = json.loads(story.apm("log", "--json", "-n", "1"))
    assert shape_of(log) == shape_of(log_doc)


def test_imported_and_promoted_dated_sections(repo: MemoryRepo, run_cli: Invoke) -> None:
    """A free-form dated section turned into a record is an entry imported (or promoted), not a section removed."""
    story = Story(repo, run_cli)
    (repo.memory / "2026-05-18.md").write_text(
        "# 2026-05-18\n\n## 2026-05-18 — Fixed the backup bug\n- The cron ran in UTC.\n\n"
        "## Notes\n\nnothing else\n")
    (repo.memory / "decisions.md").write_text(
        (repo.memory / "decisions.md").read_text() + "\n## 2026-05-13 — Email checks use gog only\n\n- Use gog.\n")
    story.apm("flush")
    before = story.mark("hand-written")
    plan = story.apm("import", "--plan")
    ran = run_cli("--repo", str(repo.root), "import", "--apply", "-", input=plan, env=at(JOURNAL_DAY))
    assert ran.exit_code == 0, ran.stderr
    data = story.diff_json(f"{before}..HEAD")
    assert {(entry["id"], entry["status"]) for entry in data["entries"]} == {
        ("2026-05-18-fixed-the-backup-bug", "imported"), ("2026-05-13-email-checks-use-gog-only", "imported")}
    assert data["sections"] == []  # each dated heading is now its record's Source

    # the same journal section promoted by deep sleep straight from free-form text
    git(repo.root, "reset", "-q", "--hard", before)
    story.apm("deep-sleep", day="2026-05-22")
    data = story.diff_json(f"{before}..HEAD")
    (entry,) = [entry for entry in data["entries"] if entry["id"] == "2026-05-18-fixed-the-backup-bug"]
    assert (entry["status"], entry["from"], entry["to"], entry["detail"]) == (
        "promoted", "memory/2026-05-18.md", "memory/lessons.md", "lesson")
    assert all(section["heading"] != "## 2026-05-18 — Fixed the backup bug" for section in data["sections"])


@pytest.mark.slow
def test_tags_and_fields_changed_by_hand(story: Story) -> None:
    people = story.repo.memory / "people.md"
    text = people.read_text()
    start = text.index("## [2026-05-20] Healthy note 1\n")
    end = text.index("## ", start + 3)
    block = text[start:end]
    edited = block.replace("- Tags: decision\n", "- Tags: decision, cache\n").replace(
        "decision_value=MEDIUM", "decision_value=LOW").rstrip("\n")
    edited += "\n- Conflicts: 2026-05-20-healthy-note-2 — both\n\n"
    people.write_text(text.replace(block, edited))
    (entry,) = story.diff_json()["entries"]
    assert changes(entry) == {"tags": ("decision", "decision, cache"), "decision_value": ("MEDIUM", "LOW"),
                              "conflicts": (None, "2026-05-20-healthy-note-2 — both")}
    assert entry["status"] == "conflict"  # a Conflicts field gained, by hand too, waits for a person
    assert "CONFLICT    2026-05-20-healthy-note-1  " in story.diff()
    assert ("(in conflict with 2026-05-20-healthy-note-2; tags +cache, decision_value MEDIUM→LOW)"
            in story.diff())
