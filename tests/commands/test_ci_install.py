"""`apm-git ci` installs in CI the apm-git the user has: read from the distribution's `direct_url.json` (PEP 610).

Each case is a real installed distribution's metadata (a `.dist-info` folder as pip lays it out) first on
the path of a real `apm-git` process; one is made by pip itself, from a git clone.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from apm_git.model.install_spec import spec_from
from apm_git.store.repo import MemoryRepo
from tests.cli.test_errors import one_line
from tests.conftest import Invoke, git

ROOT = Path(__file__).resolve().parents[2]
COMMIT = "7921be1537eac1e97bc40179a57f0349c2aabfcd"
ASK = "give --install-spec with a pip requirement CI can reach"


def installed_as(site: Path, direct_url: dict[str, object] | None, version: str = "0.9.1") -> Path:
    """A site folder holding apm-git's distribution metadata, as pip leaves it."""
    dist = site / f"apm_git-{version}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.4\nName: apm-git\nVersion: {version}\n")
    (dist / "INSTALLER").write_text("pip\n")
    if direct_url is not None:
        (dist / "direct_url.json").write_text(json.dumps(direct_url))
    return site


def ci_with(site: Path, repo: MemoryRepo, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run((sys.executable, "-m", "apm_git", "--repo", str(repo.root), "ci", *args),
                          capture_output=True, text=True, env=env, cwd=ROOT, check=False)


def written_spec(repo: MemoryRepo) -> str:
    workflow = YAML(typ="safe").load((repo.root / ".github/workflows/apm-memory.yml").read_text())
    spec = workflow["jobs"]["review"]["env"]["APM_GIT_INSTALL"]
    assert isinstance(spec, str)
    return spec


@pytest.mark.parametrize(("direct_url", "spec"), [
    (None, "apm-git==0.9.1"),  # from a package index: that version is there
    ({"url": "https://example.invalid/team/apm-git.git", "vcs_info": {"vcs": "git", "requested_revision": "v0.9",
                                                                      "commit_id": COMMIT}},
     f"apm-git @ git+https://example.invalid/team/apm-git.git@{COMMIT}"),
    ({"url": "ssh://git@example.invalid/team/apm-git.git", "vcs_info": {"vcs": "git", "commit_id": COMMIT}},
     f"apm-git @ git+ssh://git@example.invalid/team/apm-git.git@{COMMIT}"),
    ({"url": "https://example.invalid/mono.git", "subdirectory": "tools/apm-git",
      "vcs_info": {"vcs": "git", "commit_id": COMMIT}},
     f"apm-git @ git+https://example.invalid/mono.git@{COMMIT}#subdirectory=tools/apm-git"),
    ({"url": "https://example.invalid/apm_git-0.9.1-py3-none-any.whl",
      "archive_info": {"hashes": {"sha256": "ab" * 32}}},
     "apm-git @ https://example.invalid/apm_git-0.9.1-py3-none-any.whl#sha256=" + "ab" * 32),
])
def test_ci_installs_what_the_user_has(repo: MemoryRepo, tmp_path: Path, direct_url: dict[str, object] | None,
                                      spec: str) -> None:
    ran = ci_with(installed_as(tmp_path / "site", direct_url), repo, "github")
    assert ran.returncode == 0, ran.stderr
    assert written_spec(repo) == spec and f"installs {spec})" in ran.stdout


@pytest.mark.slow
@pytest.mark.parametrize(("direct_url", "why"), [
    ({"url": "file:///home/me/src/apm-git", "dir_info": {"editable": True}},
     "it was installed from file:///home/me/src/apm-git, on this machine"),
    ({"url": "file:///home/me/src/apm-git", "dir_info": {}}, "on this machine"),
    ({"url": "file:///home/me/clone", "vcs_info": {"vcs": "git", "commit_id": COMMIT}}, "on this machine"),
    ({"url": "file:///tmp/apm_git-0.9.1-py3-none-any.whl", "archive_info": {}}, "on this machine"),
    ({"url": "https://me:s3cret@example.invalid/apm-git.git", "vcs_info": {"vcs": "git", "commit_id": COMMIT}},
     "the URL it was installed from (https://example.invalid/…) carries credentials"),
    ({"url": "https://ghp_token@example.invalid/apm-git.git", "vcs_info": {"vcs": "git", "commit_id": COMMIT}},
     "carries credentials"),
    ({"url": "https://example.invalid/apm-git", "vcs_info": {"vcs": "hg", "commit_id": COMMIT}},
     "without a git commit"),
])
def test_an_apm_git_ci_cannot_reach_stops_with_one_line(repo: MemoryRepo, tmp_path: Path,
                                                        direct_url: dict[str, object], why: str) -> None:
    for provider in ("github", "gitlab"):
        ran = ci_with(installed_as(tmp_path / provider, direct_url), repo, provider)
        assert ran.returncode == 2
        line = one_line(ran.stderr)
        assert why in line and ASK in line, line
        assert "s3cret" not in line and "ghp_token" not in line
    assert not (repo.root / ".github").exists() and not (repo.root / ".gitlab-ci.yml").exists()
    spec = "apm-git @ git+https://example.invalid/team/apm-git.git@" + COMMIT
    ran = ci_with(tmp_path / "github", repo, "github", "--install-spec", spec)
    assert ran.returncode == 0 and written_spec(repo) == spec


def test_this_test_runs_editable_install_is_one_ci_cannot_reach(repo: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(repo.root), "ci", "github")
    assert ran.exit_code == 2
    assert f"it was installed from {ROOT.as_uri()}, on this machine" in one_line(ran.stderr)


@pytest.mark.slow
def test_what_pip_records_for_an_install_from_a_clone(repo: MemoryRepo, tmp_path: Path) -> None:
    """pip's own direct_url.json for `pip install git+file://…@commit`: the commit is read, the URL is local."""
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-hardlinks", str(ROOT), str(clone))
    commit = git(clone, "rev-parse", "HEAD").strip()
    site = tmp_path / "site"
    proc = subprocess.run(
        (sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
         "--target", str(site), f"git+{clone.as_uri()}@{commit}"), capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    (recorded,) = site.glob("apm_git-*.dist-info/direct_url.json")
    data = json.loads(recorded.read_text())
    assert data["vcs_info"]["commit_id"] == commit
    spec, why = spec_from(recorded.read_text(), "0")
    assert spec is None and why == f"it was installed from {clone.as_uri()}, on this machine"
    shutil.rmtree(site / "apm_git")  # the metadata pip wrote stays; the code is this checkout's
    ran = ci_with(site, repo, "github")
    assert ran.returncode == 2 and why in ran.stderr
