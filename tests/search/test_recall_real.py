"""Intent loading on shared real workspaces (free-form memory, no records): an intent in the workspace's
own language reaches the section that answers it through the index.  Skips when ../shared is absent."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Invoke
from tests.realworld import real_case


def load(run_cli: Invoke, root: Path, intent: str) -> dict[str, Any]:
    ran = run_cli("--repo", str(root), "--json", "load", "--intent", intent)
    assert ran.exit_code == 0, ran.stderr
    data = json.loads(ran.stdout)
    assert isinstance(data, dict)
    return data


def sections(data: dict[str, Any]) -> dict[str, str]:
    return {item["path"]: item["why"] for item in data["files"] if item["role"] == "L2 section"}


@pytest.mark.slow
def test_a_german_intent_routes_to_its_section(tmp_path: Path, run_cli: Invoke) -> None:
    repo = real_case("AurelClaw__TrueCore", tmp_path / "ws")
    data = load(run_cli, repo.root, "Wie ist die zellulare Architektur mit der Membran aufgebaut?")
    assert data["domain"] is None and data["recall"] == "the intent names no domain"
    found = sections(data)
    membrane = [path for path in found if path.startswith("memory/ZIEL-010-cellular-architecture.md:")]
    assert membrane, found
    assert all("membran" in found[path] for path in membrane)  # it says which words chose it
    texts = [item["text"] for item in data["files"] if item["path"] in membrane]
    assert any("### 1️⃣ MEMBRAN" in text for text in texts)
    assert data["tokens"] <= data["budget"]


@pytest.mark.slow
def test_a_chinese_intent_routes_to_its_section(tmp_path: Path, run_cli: Invoke) -> None:
    repo = real_case("Hou4007268__openclaw-backup", tmp_path / "ws")
    data = load(run_cli, repo.root, "cron 任务的 token 消耗太高，怎么优化？")
    found = sections(data)
    assert any(path.startswith("memory/lessons/cron-discipline.md:") for path in found), found
    # its L1 journals are cut to their share: the sections are not starved
    assert all(not item["cut"] or "its share of 2000 tokens" in item["cut"] for item in data["files"])


@pytest.mark.slow
def test_a_debugging_intent_loads_real_lessons_not_the_empty_template(tmp_path: Path, run_cli: Invoke) -> None:
    repo = real_case("QQSHI13__nova-workspace", tmp_path / "ws")
    data = load(run_cli, repo.root, "debug the file deletion mistake: rm instead of trash")
    assert data["domain"] == "debugging"
    paths = [item["path"] for item in data["files"]]
    assert "memory/lessons.md" in paths or any(path.startswith("memory/lessons.md:") for path in paths), paths


def test_search_finds_words_inside_cjk_runs_of_a_real_workspace(tmp_path: Path, run_cli: Invoke) -> None:
    repo = real_case("Hou4007268__openclaw-backup", tmp_path / "ws")
    ran = run_cli("--repo", str(repo.root), "--json", "search", "排查")  # inside "CSP故障排查进展"
    hits = json.loads(ran.stdout)["hits"]
    assert any(hit["file"] == "memory/2026-02-16.md" and "CSP故障排查进展" in hit["heading"] for hit in hits), hits
