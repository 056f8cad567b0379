"""Every `--json` output has a versioned schema in apm_git/schemas/, and the real output of each command,
run on a real repository, is valid against it (docs/json.md)."""
from __future__ import annotations

import json
import random
import string
from pathlib import Path
from typing import Any, get_args

import click
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from apm_git.cli.app import cli
from apm_git.model import vocabulary as words
from tests.conftest import Invoke, git
from tests.tracked_homes import machine

SCHEMAS = Path(__file__).resolve().parents[2] / "apm_git" / "schemas"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "json.md"
# Each command with --json and the schema(s) of what it prints (`import` prints its plan, or with --apply
# the run; `deep-sleep --plan` prints the plan).
SCHEMA_OF = {
    "init": ("init",), "setup": ("setup",), "merge-driver": ("merge-driver",),
    "merge-counters": ("merge-counters",), "journal add": ("journal-add",),
    "flush": ("flush",), "index": ("index",), "status": ("status", "tracked-status"), "lint": ("lint", "tracked-lint"),
    "baseline": ("baseline",),
    "allow-secret": ("baseline",), "load": ("load",), "remember": ("remember",), "search": ("search",),
    "embed": ("embed",), "hit": ("hit", "curate"), "edit": ("curate",), "restore": ("curate", "restore"),
    "proposals": ("proposals",),
    "accept": ("accept",), "reject": ("reject",), "recall": ("recall",), "hooks install": ("hooks-install",),
    "hooks uninstall": ("hooks-uninstall",), "hooks status": ("hooks-status",), "audit": ("audit",),
    "ci github": ("ci",), "ci gitlab": ("ci",), "sync": ("sync", "tracked-sync"), "diff": ("diff", "tracked-diff"),
    "log": ("log",),
    "history": ("history",), "forget": ("forget",), "deep-sleep": ("stage", "deep-sleep-plan", "proposed"),
    "rem": ("stage", "proposed"), "dream": ("dream", "proposed"), "import": ("import-plan", "stage"),
    "resolve": ("resolve",),
    "track": ("track", "track-list"), "untrack": ("untrack",), "snapshot": ("snapshot",),
}
NO_JSON = {"mcp", "ui"}  # speaks MCP on stdout / serves a page: --json has nothing to shape
REFERENCED_ONLY = {"rem-plan"}  # the plan inside `rem --json`


def leaf_commands(group: click.Group, prefix: str = "") -> dict[str, click.Command]:
    found: dict[str, click.Command] = {}
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found.update(leaf_commands(command, f"{prefix}{name} "))
        else:
            found[prefix + name] = command
    return found


def schemas() -> dict[str, dict[str, Any]]:
    return {path.name.removesuffix(".schema.json"): json.loads(path.read_text(encoding="utf-8"))
            for path in sorted(SCHEMAS.glob("*.schema.json"))}


def validator(name: str) -> Draft202012Validator:
    every = schemas()
    registry: Registry[Any] = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in every.values())
    return Draft202012Validator(every[name], registry=registry)


def test_every_command_with_json_has_a_schema_and_a_row_in_the_docs() -> None:
    cli.resolve_all()  # every command imported
    commands = leaf_commands(cli)
    with_json = {name for name, command in commands.items()
                 if any("--json" in param.opts for param in command.params)}
    assert with_json == set(commands), "--json is accepted after every command"
    assert set(SCHEMA_OF) == with_json - NO_JSON, "a command with --json and no schema (or a stale entry)"
    named = {name for names in SCHEMA_OF.values() for name in names} | REFERENCED_ONLY
    assert named == set(schemas()), "a schema file no command prints"
    docs = DOCS.read_text(encoding="utf-8")
    for command, names in SCHEMA_OF.items():
        row = next((line for line in docs.splitlines() if line.startswith(f"| `{command}` |")), None)
        assert row is not None, f"docs/json.md has no row for {command}"
        assert all(f"{name}.schema.json" in row for name in names), row


@pytest.mark.parametrize("name", sorted(schemas()))
def test_each_schema_is_a_valid_versioned_schema(name: str) -> None:
    schema = schemas()[name]
    Draft202012Validator.check_schema(schema)
    assert schema["$id"] == f"urn:apm-git:schema:{name}"
    variants = schema.get("oneOf", [schema])
    assert all(variant["properties"]["version"] == {"const": 1} for variant in variants)
    assert all(variant["additionalProperties"] is False for variant in variants)


ITEMS = "items"
# Where a schema lists the words of a Literal type: the two are one list, so a new kind, mode or role
# added in the code fails here until the schema (and docs/json.md) has it.
ENUMS = [
    ("flush", ["trigger"], words.FlushTrigger),
    ("load", ["mode"], words.LoadMode),
    ("load", ["files", ITEMS, "role"], words.LoadRole),
    ("load", ["skipped", ITEMS, "role"], words.LoadRole),
    ("search", ["method"], words.SearchMethod),
    ("recall", ["method"], words.RecallMethod),
    ("remember", ["action"], words.RememberAction),
    ("ci", ["provider"], words.CiProvider),
    ("ci", ["action"], words.CiAction),
    ("sync", ["integrated", ITEMS, "kind"], words.SyncStep),
    ("history", ["events", ITEMS, "what"], words.HistoryWhat),
    ("status", ["due", ITEMS, "stage"], words.DueStage),
    ("hooks-status", ["places", ITEMS, "where"], words.HookPlace),
    ("stage", ["stage"], words.StageName),
    ("import-plan", ["import", ITEMS, "kind"], words.EntryKind),
    ("lint", ["findings", ITEMS, "hook"], words.CheckId),
    ("lint", ["known", ITEMS, "hook"], words.CheckId),
    ("status", ["findings", "new", ITEMS, "hook"], words.CheckId),
    ("status", ["findings", "withheld", ITEMS, "hook"], words.CheckId),
    ("diff", ["entries", ITEMS, "status"], words.EntryStatus),
    ("diff", ["sections", ITEMS, "status"], words.SectionStatus),
    ("diff", ["files", ITEMS, "status"], words.FileStatus),
    ("track", ["tracked", "agent"], words.TrackedAgent),
    ("track", ["snapshot", "trigger"], words.SnapshotTrigger),
    ("tracked-diff", ["facts", ITEMS, "status"], words.FactStatus),
    ("tracked-lint", ["findings", ITEMS, "hook"], words.TrackedCheckId),
    ("tracked-diff", ["sections", ITEMS, "status"], words.TrackedSectionStatus),
]


@pytest.mark.parametrize(("name", "path", "literal"), ENUMS,
                         ids=[f"{name}:{'.'.join(path)}" for name, path, _ in ENUMS])
def test_the_enums_of_the_schemas_are_the_literal_types_of_the_code(name: str, path: list[str], literal: Any) -> None:
    node = schemas()[name]
    for key in path:
        node = node[ITEMS] if key == ITEMS else node["properties"][key]
    assert node["enum"] == list(get_args(literal))


def test_the_counts_are_keyed_by_the_literal_types_of_the_code() -> None:
    summary = schemas()["diff"]["properties"]["summary"]["properties"]
    assert list(summary["entries"]["properties"]) == list(get_args(words.EntryStatus))
    assert list(summary["sections"]["properties"]) == list(get_args(words.SectionStatus))
    findings = schemas()["status"]["properties"]["findings"]["properties"]
    for totals in ("new_totals", "known_totals"):
        assert findings[totals]["propertyNames"]["enum"] == list(get_args(words.CheckId))


def test_timer_kinds_and_agents_match() -> None:
    install = schemas()["hooks-install"]["oneOf"]
    assert [variant["properties"]["agent"]["const"] for variant in install] == list(words.AGENTS)
    assert install[1]["properties"]["kind"]["enum"] == list(get_args(words.TimerKind))


def test_the_version_is_checked_and_a_renamed_key_fails() -> None:
    good = {"version": 1, "path": "memory/INDEX.md", "changed": True}
    assert not list(validator("index").iter_errors(good))
    assert list(validator("index").iter_errors({**good, "version": 2}))
    assert list(validator("index").iter_errors({"version": 1, "file": "memory/INDEX.md", "changed": True}))


class Outputs:
    """Runs apm-git --json commands and keeps what each printed, by schema."""

    def __init__(self, run_cli: Invoke, root: Path) -> None:
        self.run_cli, self.root = run_cli, root
        self.seen: dict[str, list[Any]] = {}

    def json(self, schema: str, *args: str, at: str | None = None, exit_code: int = 0, **env: str) -> Any:
        when = {"APM_GIT_NOW": at} if at else {}
        ran = self.run_cli("--repo", str(self.root), *args, "--json", env={**when, **env})
        assert ran.exit_code == exit_code, (args, ran.stdout, ran.stderr)
        data = json.loads(ran.stdout)
        errors = [f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
                  for error in validator(schema).iter_errors(data)]
        assert not errors, (args, errors)
        self.seen.setdefault(schema, []).append(data)
        return data


def secret() -> str:
    return "AKIA" + "".join(random.choices(string.ascii_uppercase + string.digits, k=16))


@pytest.mark.slow
def test_the_real_output_of_every_command_fits_its_schema(
    tmp_path: Path, run_cli: Invoke, monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = tmp_path / "mem"
    run = Outputs(run_cli, root)
    day1, day9, day30 = "2026-04-01T10:00:00", "2026-04-09T10:00:00", "2026-04-30T10:00:00"
    run.json("init", "init", str(root), "--no-install", at=day1)
    run.json("setup", "setup", "--no-install")
    redis = run.json("journal-add", "journal", "add", "Use Redis for the session cache", "--kind", "decision",
                     "--tags", "cache", at=day1)["entry_id"]
    run.json("journal-add", "journal", "add", "Keys expire after a day", "--kind", "lesson", at=day1)
    run.json("remember", "remember", "--scope", "main", "--task", "ship the cache", "--status", "doing", at=day1)
    run.json("remember", "remember", "--scope", "group:team", "--create", "--decision", "Deploy on Fridays",
             at=day1)
    run.json("remember", "remember", "--scope", "main", "--route", "longterm.md", "--keywords", "cache,redis",
             "--priority", "P2", at=day1)
    (root / "memory/2026-04-02.md").write_text(
        "# 2026-04-02\n\n## 14:30 — Session Notes\n- **Decision:** Keep Postgres 15 — pgvector needs it\n")
    (root / "memory/tools.md").write_text(f"# Tools\n\ndeploy key {secret()}\n")
    flushed = run.json("flush", "flush", "-m", "first", at=day1)
    assert flushed["commit"] and "memory/tools.md" in flushed["withheld"]
    run.json("hit", "hit", redis, "2026-01-01-no-such-entry", at=day1, exit_code=1)
    run.json("index", "index", at=day1)
    (root / "memory/lessons.md").write_text("# Lessons\n\n## [2026-04-01] Broken\n- Body: no tags\n")
    assert run.json("lint", "lint", "--all", exit_code=1)["findings"]
    status = run.json("status", "status", at=day1)
    assert status["findings"]["new"] and status["findings"]["withheld"]
    run.json("baseline", "baseline", at=day1)
    run.json("baseline", "allow-secret", "memory/tools.md:3", at=day1)
    git(root, "checkout", "--", "memory/lessons.md")
    run.json("flush", "flush", at=day1)
    run.json("load", "load", "--main", at=day1)
    run.json("load", "load", "--group", "team", "--intent", "deploy", at=day1)
    run.json("load", "load", "--intent", "redis cache", at=day1)
    assert run.json("search", "search", "redis")["hits"]
    assert run.json("embed", "embed")["embedded"]
    assert run.json("search", "search", "--meaning", "redis")["method"] == "meaning"
    assert run.json("recall", "recall", "redis cache")["sections"]
    assert run.json("import-plan", "import", at=day1)["import"]
    plan = tmp_path / "import.json"
    plan.write_text(run_cli("--repo", str(root), "import", "--plan", env={"APM_GIT_NOW": day1}).stdout)
    run.json("stage", "import", "--apply", str(plan), at=day1)
    printed = run_cli("--repo", str(root), "deep-sleep", "--plan", env={"APM_GIT_NOW": day9})
    run.seen.setdefault("deep-sleep-plan", []).append(json.loads(printed.stdout))
    assert not list(validator("deep-sleep-plan").iter_errors(json.loads(printed.stdout)))
    run.json("stage", "deep-sleep", "--dry-run", at=day9)
    assert run.json("stage", "deep-sleep", at=day9)["plan"]["promote"]
    run.json("stage", "rem", "--dry-run", at=day9)
    run.json("stage", "rem", at=day9)
    assert run.json("dream", "dream", at=day30)["ran"]
    assert run.json("history", "history", redis)["events"]
    run.json("curate", "hit", "--commit", redis, at=day30)
    run.json("curate", "edit", redis, at=day30)
    lessons = root / "memory/lessons.md"
    lessons.write_text(lessons.read_text() + "\n## [2026-01-02] Stale\n- Tags: lesson\n- Fitness: "
                       "last_referenced=2026-01-02, hit_count=0, decision_value=LOW\n- Body: old\n")
    run.json("flush", "flush", at=day30)
    made = run.json("proposed", "rem", "--propose", at=day30)["proposed"][0]["proposal"]
    assert run.json("proposals", "proposals")["proposals"]
    run.json("reject", "reject", made)
    made = run.json("proposed", "rem", "--propose", at=day30)["proposed"][0]["proposal"]
    assert "2026-01-02-stale" in run.json("accept", "accept", made, at=day30)["accepted"]
    run.json("curate", "restore", "2026-01-02-stale", at=day30)
    run.json("proposed", "dream", "--propose", at=day30)
    run.json("forget", "forget", redis, "--reason", "obsolete", at=day30)
    with (root / "memory/decisions.md").open("a", encoding="utf-8") as decisions:  # two versions in conflict
        decisions.write("\n" + "".join(
            f"## [2026-04-03] {title}\n- Tags: decision\n- Fitness: last_referenced=2026-04-03, hit_count=0, "
            f"decision_value=MEDIUM\n- Body: {title}\n- Conflicts: {other} — two versions\n\n"
            for title, other in (("Cache A", "2026-04-03-cache-b"), ("Cache B", "2026-04-03-cache-a"))))
    assert run.json("resolve", "resolve", "2026-04-03-cache-a", "--keep", "this", at=day30)["how"] == "superseded"
    assert run.json("diff", "diff", "HEAD~4..HEAD")["entries"]
    assert run.json("log", "log")["commits"]

    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    run.json("hooks-install", "hooks", "install", "claude-code")
    assert run.json("hooks-status", "hooks", "status", "--no-run")["places"]
    run.json("hooks-uninstall", "hooks", "uninstall", "claude-code")
    table = {"APM_GIT_CRONTAB_FILE": str(tmp_path / "crontab")}
    assert run.json("hooks-install", "hooks", "install", "timer", "--cron", **table)["changed"]
    run.json("hooks-uninstall", "hooks", "uninstall", "timer", "--cron", **table)

    transcripts = tmp_path / "projects" / "-mem"
    transcripts.mkdir(parents=True)
    (transcripts / "s-1.jsonl").write_text(json.dumps({
        "sessionId": "s-1", "timestamp": "2026-04-01T09:00:00.000Z", "type": "system", "subtype": "compact_boundary",
        "compactMetadata": {"trigger": "auto"}}) + "\n")
    assert run.json("audit", "audit", str(tmp_path / "projects"), at=day30, exit_code=1)["compactions"]
    assert run.json("status", "status", at=day30)["last_audit"]["last_compaction"]
    spec = "apm-git @ git+https://example.invalid/apm-git.git@" + "0" * 40  # this run's apm-git is a local folder
    run.json("ci", "ci", "github", "--install-spec", spec)
    run.json("ci", "ci", "gitlab", "--install-spec", spec)

    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--bare", "--quiet", str(remote))
    git(root, "remote", "add", "origin", str(remote))
    assert run.json("sync", "sync", at=day30)["pushed"]

    base, ours, theirs = (tmp_path / name for name in ("base", "ours", "theirs"))
    base.write_text("# Lessons\n")
    ours.write_text("# Lessons\n\n## [2026-04-01] A\n- Tags: lesson\n- Fitness: last_referenced=2026-04-01, "
                    "hit_count=0, decision_value=LOW\n- Body: a\n")
    theirs.write_text("# Lessons\n")
    monkeypatch.chdir(root)
    run.json("merge-driver", "merge-driver", str(base), str(ours), str(theirs), "memory/lessons.md")
    assert run.json("merge-counters", "merge-counters")["skipped"] == "HEAD is not a merge of two commits"

    laptop = machine(tmp_path, monkeypatch, "tracked")
    folder = laptop.codex_memories({"MEMORY.md": "# Memories\n- prefers uv\n"})
    git(tmp_path, "init", "--bare", "--quiet", str(tmp_path / "tracked.git"))
    ident = run.json("track", "track", "codex", "--remote", str(tmp_path / "tracked.git"))["tracked"]["id"]
    (folder / "MEMORY.md").write_text("# Memories\n- prefers uv and ruff\n")
    assert run.json("snapshot", "snapshot", ident)["snapshots"][0]["commit"]
    assert run.json("track-list", "track", "--list")["tracked"]
    assert run.json("tracked-diff", "diff", "--tracked", ident, "HEAD~1..HEAD")["facts"]
    assert run.json("log", "log", "--tracked", ident)["commits"]
    assert run.json("tracked-status", "status", "--tracked", ident)["snapshots"] == 2
    assert run.json("tracked-lint", "lint", "--tracked", ident)["checked"] == ["MEMORY.md"]
    assert run.json("restore", "restore", "MEMORY.md", "--tracked", ident)["restored"]
    assert run.json("tracked-sync", "sync", "--tracked", ident)["pushed"]
    run.json("untrack", "untrack", ident)

    named = {name for names in SCHEMA_OF.values() for name in names}
    assert named <= set(run.seen), f"not exercised: {sorted(named - set(run.seen))}"
    stages = [stage for data in run.seen["stage"] for stage in [data]] + run.seen["dream"][0]["ran"]
    assert {"deep-sleep", "rem", "import"} <= {stage["stage"] for stage in stages}
