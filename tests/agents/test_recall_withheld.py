"""The per-prompt recall never hands the agent a section that holds a suspected secret (issue 23.2): such a
section is passed over, as `load` passes it over, and one line the agent reads says where it is, its kind and how
to clear it, never the secret.  Both entries (`apm-git-recall` and `apm-git recall`) print the same bytes."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from apm_git.commands.init import init
from apm_git.commands.journal import add
from apm_git.store.repo import MemoryRepo, open_repo
from tests.agents.test_recall_hook import both, payload
from tests.conftest import run_apm

AWS_KEY = "AKIA" + "Q7XW2M4KZP3RT9BN"  # fake, of the real shape
PROMPT = "why does the redis tunnel fail on staging?"


def _secret_section(repo: MemoryRepo, file: str) -> int:
    """Append by hand (as an agent's file tools would) a record whose body holds a key; the line it is on."""
    path = repo.root / file
    text = path.read_text(encoding="utf-8")
    record = ("\n## [2026-04-06] Staging redis tunnel credentials\n- Tags: tool\n"
              "- Fitness: last_referenced=2026-04-06, hit_count=0, decision_value=MEDIUM\n"
              f"- Body: the redis tunnel on staging logs in with {AWS_KEY}\n")
    path.write_text(text + record, encoding="utf-8")
    return len((text + record).splitlines())


@pytest.fixture
def memory(tmp_path: Path) -> MemoryRepo:
    init(tmp_path / "memory", install=False)
    return open_repo(tmp_path / "memory")


def _hook(memory: MemoryRepo, cwd: Path, prompt: str) -> tuple[int, str, bytes]:
    fast, full = both(memory.root, payload(cwd, prompt=prompt), cwd)
    assert fast == full
    code, out, err = fast
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
    return code, context, err


def test_a_section_holding_a_secret_is_left_out_with_one_line(memory: MemoryRepo, tmp_path: Path) -> None:
    entry = add(memory, "the staging proxy needs NO_PROXY=localhost for the redis tunnel", kind="tool",
                title="Staging proxy redis tunnel")
    line = _secret_section(memory, entry.file)
    code, context, err = _hook(memory, tmp_path, PROMPT)
    assert code == 0 and err == b""
    assert "NO_PROXY=localhost" in context  # the clean section is recalled as before
    assert AWS_KEY not in context and "logs in with" not in context
    notes = [text for text in context.splitlines() if "left out" in text]
    assert notes == [
        f"[apm-git: 1 section of memory matching this prompt left out here: it holds what looks like a credential "
        f"({entry.file}:{line} (AWS Access Key)); to clear: remove the secret and note where it lives instead, or "
        "if it is not one, `apm-git allow-secret PATH:LINE`; then `apm-git flush`]"]
    ran = run_apm("--repo", str(memory.root), "--json", "recall", PROMPT, cwd=tmp_path)
    data = json.loads(ran.stdout)
    assert ran.exit_code == 0 and AWS_KEY not in ran.stdout
    assert [item["entry_id"] for item in data["sections"]] == [entry.entry_id]
    assert data["withheld"] == [{"path": entry.file, "line": line, "heading": "[2026-04-06] Staging redis tunnel "
                                 "credentials", "kinds": ["AWS Access Key"]}]


@pytest.mark.slow
def test_only_the_line_when_every_match_is_withheld_and_none_once_marked(memory: MemoryRepo,
                                                                         tmp_path: Path) -> None:
    entry = add(memory, "something else entirely", kind="context", title="Unrelated")
    line = _secret_section(memory, entry.file)
    code, context, _ = _hook(memory, tmp_path, PROMPT)
    assert code == 0 and AWS_KEY not in context
    assert context.count("\n") <= 1 and context.startswith("[apm-git: 1 section of memory matching this prompt")
    assert f"{entry.file}:{line} (AWS Access Key)" in context
    ran = run_apm("--repo", str(memory.root), "allow-secret", f"{entry.file}:{line}", cwd=memory.root)
    assert ran.exit_code == 0, ran.stderr
    code, context, _ = _hook(memory, tmp_path, PROMPT)  # a false positive, marked: recalled like any section
    assert code == 0 and AWS_KEY in context and "left out" not in context
