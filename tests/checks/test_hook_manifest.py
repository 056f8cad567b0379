"""`.pre-commit-hooks.yaml`: valid, generated from the checks, every hook id documented."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML

from apm_git.checks.catalog import CHECKS
from apm_git.checks.manifest import EVERY, alias, manifest_hook
from apm_git.model.vocabulary import CHECK_IDS

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"


def test_the_manifest_is_apm_checks_then_each_check_as_an_alias() -> None:
    hooks = YAML(typ="safe").load(MANIFEST.read_text())
    assert hooks == [manifest_hook(EVERY), *(manifest_hook(alias(check)) for check in CHECKS)]
    assert [hook["id"] for hook in hooks] == ["apm-checks", *CHECK_IDS]
    assert {hook["entry"] for hook in hooks} == {f"apm-git-hook-run {hook['id']}" for hook in hooks}  # no sh, no cache


def test_pre_commit_validates_the_manifest() -> None:
    proc = subprocess.run((sys.executable, "-m", "pre_commit", "validate-manifest", str(MANIFEST)),
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_an_alias_keeps_the_options_its_hook_always_had() -> None:
    """A config written before `apm-checks` keeps running each check where it ran: the checks of the whole
    snapshot on every commit without file names, the per-file ones on the files handed to them."""
    for check in CHECKS:
        data = manifest_hook(alias(check))
        assert data["require_serial"] is True
        whole = (data.get("pass_filenames"), data.get("always_run")) == (False, True)
        assert whole == (check.id in ("apm-append-only", "apm-no-loss", "apm-index-fresh")), check.id
    assert manifest_hook(alias(next(c for c in CHECKS if c.id == "apm-state-json")))["files"] == (
        r"(^|/)(flush-state|group_names)\.json$")


def test_the_one_hook_is_handed_the_files_and_runs_with_none() -> None:
    data = manifest_hook(EVERY)
    assert data["always_run"] is True and "pass_filenames" not in data  # the per-file checks get the files


def test_every_hook_id_is_documented() -> None:
    checks = (ROOT / "docs/checks.md").read_text()
    for hook_id in CHECK_IDS:
        assert f"| `{hook_id}` |" in checks, hook_id
    assert "`apm-checks`" in (ROOT / "docs/checking.md").read_text().split("\n## ", 1)[0]  # its opening section
