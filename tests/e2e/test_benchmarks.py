"""The benchmark generator makes repositories apm-git reads cleanly and can flush."""
from __future__ import annotations

import sys
from pathlib import Path

from apm_git.model.records import parse
from apm_git.store.repo import open_repo
from tests.conftest import git, run_apm

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from generate import generate


def test_small_synthetic_repository_is_valid_and_flushes(tmp_path: Path) -> None:
    generated = generate(tmp_path / "mem", entries=100, commits=10, groups=2, seed=1)
    repo = open_repo(generated.out_dir)
    ids = []
    for rel in repo.markdown_files():
        parsed = parse(repo.read(rel) or "")
        assert not list(parsed.problems()), rel
        ids += [record.id for record in parsed.entries]
    assert sorted(ids) == sorted(generated.entry_ids) and len(set(ids)) == 100
    assert git(generated.out_dir, "rev-list", "--count", "HEAD").strip() == "10"
    (repo.memory / "lessons.md").write_text((repo.memory / "lessons.md").read_text() + "\nnote\n")
    ran = run_apm("flush", cwd=generated.out_dir)
    assert ran.exit_code == 0, ran.stderr
    assert git(generated.out_dir, "status", "--porcelain") == ""
