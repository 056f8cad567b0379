"""`apm-git import`: dated sections and session notes become records in place, every line kept."""
from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apm_git.dreaming.importing import execute_import, import_from_json, plan_import
from apm_git.errors import PlanRefused
from apm_git.model.config import Config
from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.model.records import parse
from apm_git.present.shapes_plans import plan_json
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git, run_apm
from tests.realworld import ENV_CASES, cases_dir

TODAY = dt.date(2026, 5, 20)
ROUTING = Config().routing
JOURNAL = (
    "# 2026-05-12\n\n"
    "## Morning\nfree text stays\n\n"
    "## 2026-05-12 09:00 Europe/Lisbon — Fixed the backup bug\n"
    "- The cron ran in UTC.\n"
    "```\n## a fenced line\n```\n\n"
    "## 14:30 — Session Notes\n"
    "- **Decision:** Keep Postgres 15 — the pgvector build needs it\n"
    "  (checked on staging)\n"
    "- a plain line stays a plain line\n"
    "- **Pending:** Ask Bob about the deploy window"
)
DECISIONS = (
    "# Decisions\n\nSeed notes.\n\n"
    "## 2026-05-13 — Email checks use gog only\n\n- Use `gog` only.\n- Stop and report otherwise.\n\n"
    "## Not dated\n- stays\n"
)


def lines_kept(before: str, after: str) -> list[str]:
    """The lines of `before` whose text is nowhere in `after` (a dated heading may be quoted in a field)."""
    return [line for line in before.splitlines() if line.strip() and line.strip() not in after]


def test_plan_and_carry_out_in_place_keeping_every_line() -> None:
    files = {"2026-05-12.md": JOURNAL, "decisions.md": DECISIONS}
    plan = plan_import(files, ROUTING, {}, TODAY)
    assert [(i.entry_id, i.file, i.line, i.form, i.kind) for i in plan.items] == [
        ("2026-05-12-fixed-the-backup-bug", "2026-05-12.md", 6, "dated", "lesson"),
        ("2026-05-12-keep-postgres-15", "2026-05-12.md", 13, "note", "decision"),
        ("2026-05-12-ask-bob-about-the-deploy-window", "2026-05-12.md", 16, "note", "pending"),
        ("2026-05-13-email-checks-use-gog-only", "decisions.md", 5, "dated", "decision"),
    ]
    writes = execute_import(plan, files, ROUTING, {})
    for name, before in files.items():
        assert lines_kept(before, writes[name]) == [], name
        assert parse(writes[name]).render() == writes[name]
    journal = parse(writes["2026-05-12.md"])
    assert [r.id for r in journal.entries] == [i.entry_id for i in plan.items[:3]]
    assert journal.blocks[0].text == "## Morning\nfree text stays\n\n"
    notes = journal.blocks[2]
    assert notes.text == "## 14:30 — Session Notes\n- a plain line stays a plain line\n\n"
    postgres = journal.entries[1]
    assert postgres.body == "Keep Postgres 15 — the pgvector build needs it"
    assert postgres.extra_lines == ["- **Decision:** Keep Postgres 15 — the pgvector build needs it",
                                    "  (checked on staging)"]
    assert writes["2026-05-12.md"].endswith("- **Pending:** Ask Bob about the deploy window")  # no newline added
    (decision,) = parse(writes["decisions.md"]).entries
    assert decision.title == "Email checks use gog only" and decision.kind == "decision"
    assert decision.field("Source") == 'heading "## 2026-05-13 — Email checks use gog only"'
    assert writes["decisions.md"].endswith("## Not dated\n- stays\n")


def test_ids_already_used_are_skipped_and_a_stale_plan_is_refused() -> None:
    files = {"decisions.md": DECISIONS + "## 2026-05-13 — Email checks use gog only\n- again\n"}
    plan = plan_import(files, ROUTING, {"2026-05-12-x": "memory/archive/2026-05.md"}, TODAY)
    assert len(plan.items) == 1
    assert [(s.line, s.reason) for s in plan.skipped] == [
        (12, "entry id 2026-05-13-email-checks-use-gog-only is already used in decisions.md:5"),
    ]
    edited = import_from_json(plan_json(plan, "memory"), "memory", TODAY)
    with pytest.raises(PlanRefused, match=r"no such section in decisions\.md now"):
        execute_import(edited, {"decisions.md": "# Decisions\n"}, ROUTING, {})
    data = plan_json(plan, "memory")
    data["import"][0]["kind"] = "mood"
    with pytest.raises(PlanRefused, match=r"import\[0\]\.kind must be one of the kinds: decision, lesson, "):
        import_from_json(data, "memory", TODAY)
    data["import"][0]["kind"] = "lesson"  # a person may change the kind
    writes = execute_import(import_from_json(data, "memory", TODAY), files, ROUTING, {})
    (lesson,) = parse(writes["decisions.md"]).entries
    assert lesson.kind == "lesson"
    with pytest.raises(PlanRefused, match="outside the memory dir"):
        import_from_json({"stage": "import", "import": [{"id": "a", "file": "../x.md", "kind": "lesson"}]},
                         "memory", TODAY)


@pytest.mark.slow
def test_import_shows_the_plan_then_applies_it_as_one_commit(repo: MemoryRepo, run_cli: Invoke,
                                                             tmp_path: Path) -> None:
    (repo.memory / "2026-05-12.md").write_text(JOURNAL, encoding="utf-8")
    (repo.memory / "decisions.md").write_text(DECISIONS, encoding="utf-8")
    root = str(repo.root)
    env = {"APM_GIT_NOW": "2026-05-20T09:00:00+00:00"}
    shown = run_cli("--repo", root, "import", env=env)
    assert shown.exit_code == 0 and shown.stdout.startswith("apm-git: import would turn 4 section(s) into records")
    assert "  import: 2026-05-13-email-checks-use-gog-only memory/decisions.md:5 (dated, decision)" in shown.stdout
    assert json.loads(run_cli("--repo", root, "--json", "import", env=env).stdout)["stage"] == "import"
    plan = run_cli("--repo", root, "import", "--plan", env=env)
    data = json.loads(plan.stdout)
    data["import"] = [item for item in data["import"] if item["kind"] != "pending"]  # edited: one dropped
    (tmp_path / "plan.json").write_text(json.dumps(data), encoding="utf-8")
    head = git(repo.root, "rev-parse", "HEAD").strip()
    ran = run_cli("--repo", root, "import", "--apply", str(tmp_path / "plan.json"), env=env)
    assert ran.exit_code == 0, ran.stderr
    subjects = git(repo.root, "log", "--format=%s", f"{head}..HEAD").splitlines()
    assert subjects[0] == "memory: import 3 sections as records" and subjects[1].startswith("memory: flush")
    trailers = git(repo.root, "log", "-1", "--format=%(trailers:key=Apm-Import,valueonly)").split("\n")
    assert [t for t in trailers if t] == [
        "2026-05-12-fixed-the-backup-bug memory/2026-05-12.md:6 (dated section, lesson)",
        "2026-05-12-keep-postgres-15 memory/2026-05-12.md:13 (session note, decision)",
        "2026-05-13-email-checks-use-gog-only memory/decisions.md:5 (dated section, decision)",
    ]
    assert "- **Pending:** Ask Bob" in (repo.memory / "2026-05-12.md").read_text(encoding="utf-8")
    lint = run_cli("--repo", root, "lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert "apm-record-format" not in lint.stdout, lint.stdout
    history = run_cli("--repo", root, "history", "2026-05-13-email-checks-use-gog-only")
    assert "import" in history.stdout
    # Applying the same plan again: the sections are records now.
    again = run_cli("--repo", root, "import", "--apply", str(tmp_path / "plan.json"), env=env)
    assert again.exit_code == 1 and "no such section in" in again.stderr
    # Deep sleep now promotes the imported lesson.
    promoted = run_cli("--repo", root, "deep-sleep", env=env)
    assert "2026-05-12-fixed-the-backup-bug memory/2026-05-12.md -> memory/lessons.md" in promoted.stdout


def test_a_plan_that_is_not_json_is_one_line(repo: MemoryRepo, run_cli: Invoke, tmp_path: Path) -> None:
    (tmp_path / "plan.json").write_text("{nope", encoding="utf-8")
    ran = run_cli("--repo", str(repo.root), "import", "--apply", str(tmp_path / "plan.json"))
    assert ran.exit_code == 1 and "not valid JSON" in ran.stderr and "apm-git import --plan" in ran.stderr
    both = run_cli("--repo", str(repo.root), "import", "--plan", "--apply", str(tmp_path / "plan.json"))
    assert both.exit_code == 2


def busy_day(sections: int) -> str:
    """A journal of `sections` dated sections, 3 lines each."""
    sections_text = "".join(f"## 2026-05-12 — Fixed bug {n}\n- it was the cron\n\n" for n in range(sections))
    return "# 2026-05-12\n\n" + sections_text


def test_import_keeps_every_file_within_what_it_had() -> None:
    """Issue 23: `import` right after adoption added record lines to journals already over budget."""
    budgets = Config(budgets={"journal": 40}).budget_for
    over, tight = busy_day(40), busy_day(10)  # 122 lines (over 40 already), 32 lines
    files = {"2026-05-12.md": over, "2026-05-13.md": tight.replace("2026-05-12", "2026-05-13")}
    plan = plan_import(files, ROUTING, {}, TODAY, budgets)
    assert {item.file for item in plan.items} == {"2026-05-13.md"} and len(plan.items) == 2  # 4 lines more each
    skipped = {(s.file, s.reason) for s in plan.skipped}
    assert skipped == {
        ("2026-05-12.md", "no room: its record would take the file past the 122 lines it has (over its budget of "
                          "40 already: import never makes it longer)"),
        ("2026-05-13.md", "no room: its record would take the file past its budget of 40 lines"),
    }
    assert len(plan.skipped) == 48
    writes = execute_import(plan, files, ROUTING, {}, budgets)
    assert list(writes) == ["2026-05-13.md"] and writes["2026-05-13.md"].count("\n") == 40
    # An edited plan that imports into the full journal anyway is refused whole.
    everything = plan_import(files, ROUTING, {}, TODAY)
    with pytest.raises(PlanRefused, match=r"importing 40 section\(s\) into 2026-05-12\.md would make it 282 lines, "
                                          r"past the 122 lines it has"):
        execute_import(everything, files, ROUTING, {}, budgets)


@pytest.mark.slow
def test_planning_counts_a_full_journal_once_however_many_sections_it_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 22.5: a journal of 100,000 dated sections over its budget had its lines counted once per section it
    skipped (and its blocks copied once per section), so `import` ran for many minutes.  The shape, not the time:
    the whole-file line counts stay the same from 100 sections to 1,600."""
    from apm_git.dreaming import importing
    from apm_git.model.records import count_lines

    counted: list[int] = []

    def counting(text: str) -> int:
        counted.append(len(text))
        return count_lines(text)

    monkeypatch.setattr(importing, "count_lines", counting)
    budgets = Config(budgets={"journal": 40}).budget_for
    calls = []
    for sections in (100, 400, 1_600):
        counted.clear()
        plan = plan_import({"2026-05-12.md": busy_day(sections)}, ROUTING, {}, TODAY, budgets)
        assert len(plan.skipped) == sections and not plan.items
        calls.append(len(counted))
    assert calls[0] == calls[1] == calls[2], calls


def test_the_text_names_a_few_skips_of_each_kind_and_counts_the_rest(repo: MemoryRepo, run_cli: Invoke) -> None:
    (repo.memory / "2026-05-12.md").write_text(busy_day(150))  # 452 lines: over the journal budget of 100
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-q", "--no-verify", "-m", "a busy day")
    ran = run_cli("--repo", str(repo.root), "import")
    assert ran.exit_code == 0, ran.stderr
    why = "no room: its record would take the file past the 452 lines it has (over its budget of 100 already: import " \
          "never makes it longer)"
    assert ran.stdout.splitlines() == [
        "apm-git: import would turn 0 section(s) into records (nothing changed)",
        *(f"  skip: memory/2026-05-12.md:{line}: {why}" for line in (3, 6, 9)),
        "  skip: memory/2026-05-12.md: and 147 more section(s) for the same reason (`apm-git import --plan` lists "
        "them)"]
    plan = json.loads(run_cli("--repo", str(repo.root), "import", "--plan").stdout)
    assert len(plan["skipped"]) == 150


def test_import_right_after_adoption_commits_nothing_lint_refuses(tmp_path: Path, run_cli: Invoke) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "memory/2026-05-12.md").write_text(busy_day(40), encoding="utf-8")  # 122 lines: over its budget of 100
    (root / "memory/2026-05-13.md").write_text(busy_day(3).replace("2026-05-12", "2026-05-13"), encoding="utf-8")
    env = {"APM_GIT_NOW": "2026-05-20T09:00:00+00:00"}
    assert run_cli("init", "--no-install", str(root), env=env).exit_code == 0
    plan = run_cli("--repo", str(root), "import", "--plan", env=env)
    data = json.loads(plan.stdout)
    assert {item["file"] for item in data["import"]} == {"memory/2026-05-13.md"}
    assert {item["file"] for item in data["skipped"]} == {"memory/2026-05-12.md"}
    (tmp_path / "plan.json").write_text(plan.stdout, encoding="utf-8")
    ran = run_cli("--repo", str(root), "import", "--apply", str(tmp_path / "plan.json"), env=env)
    assert ran.exit_code == 0 and "import 3 sections as records" in ran.stdout, ran.stderr
    assert (root / "memory/2026-05-12.md").read_text(encoding="utf-8") == busy_day(40)
    lint = run_cli("--repo", str(root), "lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert lint.exit_code == 0, lint.stdout


CASES = cases_dir() or Path("../shared/realworld/cases")
NAMES = sorted(path.name for path in CASES.iterdir() if path.is_dir()) if CASES.is_dir() else []


@pytest.mark.slow
@pytest.mark.skipif(not CASES.is_dir(), reason=f"the real workspaces are not here ({CASES}); set {ENV_CASES}")
@pytest.mark.parametrize("name", NAMES)  # one workspace a case: the workers share them out
def test_import_on_every_real_workspace_drops_no_line(name: str, tmp_path: Path) -> None:
    case = CASES / name
    work = tmp_path / case.name
    shutil.copytree(case, work, ignore=shutil.ignore_patterns("SOURCE.txt"))
    before = {path: path.read_bytes() for path in (work / "memory").rglob("*.md")}
    assert run_apm("init", "--no-install", cwd=work).exit_code == 0
    plan = run_apm("import", "--plan", cwd=work)
    assert plan.exit_code == 0, (case.name, plan.stderr)
    ran = run_apm("import", "--apply", "-", cwd=work, input=plan.stdout)
    assert ran.exit_code == 0, (case.name, ran.stderr)
    for path, data in before.items():
        if path.name == "INDEX.md":
            continue  # adoption's business (it moves a hand-kept index aside)
        text = data.decode("utf-8", "replace")
        assert lines_kept(text, path.read_text(encoding="utf-8", errors="replace")) == [], (case.name, path)
    lint = run_apm("lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD", cwd=work)
    assert "apm-record-format" not in lint.stdout, (case.name, lint.stdout)


SECTIONS = (
    "## 2026-05-12 — Fixed the backup bug\n- The cron ran in UTC.\n",
    "## 2026-05-12 10:15 (Asia/Jakarta)\nChecked the deploy window\n\n",
    "## 2026-05-13\n",  # nothing under it: not imported
    "## 14:30 — Session Notes\n- **Decision:** Keep Postgres — pgvector\n  (staging)\n- plain line\n\n",
    "## 09:00 — Session Notes\n- **Lesson:** Retry the upload — flaky network\n",
    "## Notes\nfree text\n\n",
    "```\n## 2026-05-12 — fenced, not a heading\n```\n",
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(SECTIONS), max_size=6), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_import_never_drops_a_line(sections: list[str], newline: str, no_final_newline: bool) -> None:
    text = ("# 2026-05-12\n\n" + "".join(sections)).replace("\n", newline)
    if no_final_newline:
        text = text.rstrip("\r\n")
    files = {"2026-05-12.md": text, "decisions.md": text.replace("# 2026-05-12", "# Decisions")}
    plan = plan_import(files, ROUTING, {}, TODAY)
    writes = execute_import(plan, files, ROUTING, {})
    for name, before in files.items():
        after = writes.get(name, before)
        assert lines_kept(before, after) == [], (name, before, after)
        assert parse(after).render() == after
        assert after.endswith(newline) == before.endswith(newline)  # the file ends as it did
    imported = {(item.file, item.entry_id) for item in plan.items}
    found = {(name, record.id) for name, text in writes.items() for record in parse(text).entries}
    assert imported <= found  # every item is a well-formed record where it was


def _dated_sections(count: int, first_line: str) -> str:
    """A journal of `count` dated sections (one a day from 2000-01-01), each a heading and `first_line`."""
    start = dt.date(2000, 1, 1)
    return "# 2026-04-01\n\n" + "".join(
        f"## {(start + dt.timedelta(days=n % 9000)).isoformat()} note {n}\n{first_line}\n\n" for n in range(count))


@pytest.mark.slow
def test_import_never_makes_a_file_larger_than_the_read_limit(repo: MemoryRepo, tmp_path: Path) -> None:
    """Issue 22.5: a record is longer than the section it replaces (its Body repeats the first line), so
    thousands of sections, or one long line, would grow past the read limit: planned as skipped, refused
    when applied, one line each, nothing changed."""
    env = {"APM_GIT_NOW": "2026-05-20T09:00:00+00:00"}
    root = repo.root
    # Journals with room enough that the size rule, not the budget one, is what stops these imports.
    config = root / "apm.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("  journal: 100\n", "  journal: 100000\n"),
                      encoding="utf-8")
    git(root, "commit", "-qm", "journals of 100,000 lines", "--", "apm.yaml")
    many = repo.memory / "2026-04-01.md"
    many.write_text(_dated_sections(200, "word " * 2200), encoding="utf-8")  # 2.2 MB, 4.4 MB imported
    long_line = repo.memory / "2026-04-02.md"
    long_line.write_text("# 2026-04-02\n\n## 2026-04-02 One long line\nshort\n", encoding="utf-8")
    (repo.memory / "2026-04-03.md").write_text("# 2026-04-03\n\n## 2026-04-03 Decision: use redis\nfast\n",
                                               encoding="utf-8")
    stale = json.loads(run_apm("--json", "import", "--plan", cwd=root, env=env).stdout)
    long_line.write_text("# 2026-04-02\n\n## 2026-04-02 One long line\n" + "z " * 1_250_000 + "\n", encoding="utf-8")
    plan = json.loads(run_apm("--json", "import", "--plan", cwd=root, env=env).stdout)
    assert {item["file"] for item in plan["import"]} == {"memory/2026-04-03.md"}
    skipped = {item["file"]: item["reason"] for item in plan["skipped"]}
    assert set(skipped) == {"memory/2026-04-01.md", "memory/2026-04-02.md"}
    assert all("past the 4.0 MB apm-git reads" in reason for reason in skipped.values())
    # A plan printed before the line grew names the long section: refused, one line, nothing changed.
    (tmp_path / "stale.json").write_text(json.dumps(stale), encoding="utf-8")
    sizes = {path.name: path.stat().st_size for path in repo.memory.glob("2026-*.md")}
    refused = run_apm("import", "--apply", str(tmp_path / "stale.json"), cwd=root, env=env)
    assert refused.exit_code == 1 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "importing into" in refused.stderr and "nothing was changed" in refused.stderr
    assert {path.name: path.stat().st_size for path in repo.memory.glob("2026-*.md")} == sizes
    (tmp_path / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    applied = run_apm("import", "--apply", str(tmp_path / "plan.json"), cwd=root, env=env)
    assert applied.exit_code == 0, applied.stderr
    assert "## [2026-04-03] Decision: use redis\n- Tags: decision" in git(root, "show", "HEAD:memory/2026-04-03.md")
    for name in git(root, "ls-tree", "-r", "--name-only", "HEAD", "memory").split():
        size = int(git(root, "cat-file", "-s", f"HEAD:{name}"))
        assert size <= MAX_FILE_BYTES, name


@pytest.mark.slow
def test_a_journal_of_many_dated_headings_is_not_imported_past_the_read_limit() -> None:
    """The issue's own case (100,000 dated headings: 2.4 MB grown to 16 MB), at 40,000 headings: 0.9 MB
    that importing would make 6.3 MB."""
    files = {"2026-04-01.md": _dated_sections(40_000, "x")}
    plan = plan_import(files, ROUTING, {}, TODAY)
    assert plan.items == [] and [(s.file, s.line) for s in plan.skipped] == [("2026-04-01.md", 1)]
    assert "would make it 6." in plan.skipped[0].reason
