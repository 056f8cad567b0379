"""`.pre-commit-hooks.yaml`: valid, in step with the code, every hook id documented."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML

from apm_git.checks.manifest import EVERY, HOOK_IDS, HOOKS, manifest_hook
from apm_git.checks.manifest import MANIFEST as DECLARED
from apm_git.checks.run import CHECKS
from apm_git.model.vocabulary import CHECK_IDS

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"


def test_the_manifest_is_what_the_code_declares() -> None:
    assert YAML(typ="safe").load(MANIFEST.read_text()) == [manifest_hook(hook) for hook in DECLARED]
    assert list(CHECKS) == list(HOOK_IDS) == [
        "apm-budget", "apm-record-format", "apm-append-only", "apm-no-loss", "apm-index-fresh", "apm-state-json",
        "apm-no-secrets",
    ]
    assert sorted(HOOK_IDS) == sorted(CHECK_IDS)  # the Literal type of a finding's `hook` (model/vocabulary.py)


def test_pre_commit_validates_the_manifest() -> None:
    proc = subprocess.run((sys.executable, "-m", "pre_commit", "validate-manifest", str(MANIFEST)),
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_cross_file_hooks_read_git_themselves() -> None:
    for hook in HOOKS:
        data = manifest_hook(hook)
        assert data["require_serial"] is True
        if hook.id in ("apm-append-only", "apm-no-loss", "apm-index-fresh"):
            assert (data["pass_filenames"], data["always_run"]) == (False, True)


def test_the_one_hook_is_handed_the_files_and_runs_with_none() -> None:
    data = manifest_hook(EVERY)
    assert data["always_run"] is True and "pass_filenames" not in data  # the per-file checks get the files


def test_every_hook_id_is_documented_in_the_readme() -> None:
    checks = (ROOT / "README.md").read_text().split("## Checks", 1)[1].split("\n## ", 1)[0]
    for hook_id in (*HOOK_IDS, EVERY.id):
        assert f"`{hook_id}`" in checks, hook_id
