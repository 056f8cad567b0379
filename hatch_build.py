"""Hatch build hook: the `apm-git-hook` a wheel installs carries the package's STAMP.

`scripts/apm-git-hook` (POSIX sh) answers six of a commit's seven hooks from the findings
`apm-git-hook-run` (Python) stored under a key that begins with STAMP, the package version and
the layout of the findings file.  The script says `STAMP=unbuilt`; this hook writes the stamp of
the runner module (the module of the `apm-git-hook-run` entry point) into the copy that goes into
the wheel, so the two are never written by hand twice (docs/hook-entry.md).
"""
from __future__ import annotations

import importlib
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SCRIPT = "scripts/apm-git-hook"
PLACEHOLDER = "STAMP=unbuilt"
RUNNER = "apm-git-hook-run"


def stamped(text: str, stamp: str) -> str:
    """The script with its stamp line written; it must hold the placeholder line exactly once."""
    lines = text.split("\n")
    found = [index for index, line in enumerate(lines) if line.split("#")[0].strip() == PLACEHOLDER]
    if len(found) != 1:
        raise ValueError(f"{SCRIPT}: expected one line `{PLACEHOLDER}`, found {len(found)}")
    lines[found[0]] = lines[found[0]].replace(PLACEHOLDER, f"STAMP={stamp}", 1)
    return "\n".join(lines)


def runner_stamp(root: str, entry: str) -> str:
    """STAMP of the module an entry point such as `apm_git.x.y:main` names, imported from `root`."""
    module_name = entry.split(":")[0].strip()
    sys.path.insert(0, root)
    try:
        return str(importlib.import_module(module_name).STAMP)
    finally:
        sys.path.remove(root)
        for name in [name for name in sys.modules if name.split(".")[0] == module_name.split(".")[0]]:
            del sys.modules[name]


class StampBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        stamp = runner_stamp(self.root, self.metadata.core.scripts[RUNNER])
        self._folder = tempfile.mkdtemp(prefix="apm-git-build-")
        script = Path(self._folder) / "apm-git-hook"
        script.write_text(stamped((Path(self.root) / SCRIPT).read_text(encoding="utf-8"), stamp), encoding="utf-8")
        script.chmod(0o755)
        build_data["shared_scripts"][str(script)] = "apm-git-hook"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        folder = getattr(self, "_folder", None)
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
