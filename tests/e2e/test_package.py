"""A non-editable install works from any directory, with the templates and the JSON schemas inside the wheel."""
from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from apm_git import __version__

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_wheel_ships_templates_and_runs_from_anywhere(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        (sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)),
        check=True, capture_output=True,
    )
    (wheel,) = dist.glob("apm_git-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "apm_git/templates/init/apm.yaml" in names
    assert "apm_git/templates/group/index.md" in names
    shipped = {name for name in names if name.startswith("apm_git/schemas/")}
    assert shipped == {f"apm_git/schemas/{path.name}" for path in (ROOT / "apm_git" / "schemas").glob("*.schema.json")}
    # one hook program, under its name and the name configurations from before `apm-checks` run; no sh script
    entry_points = zipfile.ZipFile(wheel).read(f"apm_git-{__version__}.dist-info/entry_points.txt").decode()
    assert "apm-git-hook = apm_git.operations.hook_run:main" in entry_points.splitlines()
    assert "apm-git-hook-run = apm_git.operations.hook_run:main" in entry_points.splitlines()
    assert not any(".data/scripts/" in name for name in names)
    assert not any(name.startswith("tests/") for name in names)

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    # The dependencies come from the test environment (plain path entry: its editable apm-git .pth is not read).
    purelib = subprocess.run((str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"),
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run((sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                    "--no-index", str(wheel)), check=True, capture_output=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = subprocess.run(
        (str(env_dir / "bin" / "apm-git"), "init", str(tmp_path / "mem"), "--no-install"),
        cwd=elsewhere, capture_output=True, text=True, check=False,
        env={"PATH": f"{env_dir / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "GIT_AUTHOR_NAME": "t",
             "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
             "GIT_COMMITTER_EMAIL": "t@example.invalid"},
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "mem" / "memory" / "decisions.md").is_file()
    hook = subprocess.run((str(env_dir / "bin" / "apm-git-hook"), "apm-no-loss"), cwd=tmp_path / "mem",
                          capture_output=True, text=True, check=False, env={"PATH": f"{env_dir / 'bin'}:/usr/bin:/bin"})
    assert (hook.returncode, hook.stdout, hook.stderr) == (0, "", "")
    where = subprocess.run((str(python), "-c", "import apm_git; print(apm_git.__file__)"), cwd=elsewhere,
                           capture_output=True, text=True, check=True).stdout
    assert str(env_dir) in where
