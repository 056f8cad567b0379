"""Issue 26: the SessionEnd snapshot hook of a tracked Claude Code memory folder of 2,000 lines, exactly as
`apm-git track claude-code` wires it and Claude Code runs it (`/bin/sh -c COMMAND` in the project, a real
SessionEnd payload on stdin), after the session changed one topic file, so every run commits; the same
hook when nothing changed; and the floor of any such hook (the interpreter's start and one `git status`
of the folder, no apm-git code).  Target: the snapshot's median at most 0.3 s (Claude Code gives the
SessionEnd hooks 1.5 s in all)."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from harness import APM, Context, Row, alternate, env, median_of, paired_ratio

SECTION = "tracking"
TARGET = 0.3
LINES = 2_000
TOPICS = 24


def _folder(home: Path, project: Path) -> Path:
    """A Claude Code memory folder of LINES lines: an index MEMORY.md and topic files with front matter."""
    slug = "".join(char if char.isalnum() and char.isascii() else "-" for char in str(project))
    folder = home / ".claude" / "projects" / slug / "memory"
    folder.mkdir(parents=True)
    index = ["# Memory", ""] + [f"- [Topic {n}](topic-{n}.md) — what we learnt about part {n}" for n in range(TOPICS)]
    (folder / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    per_topic = -(-(LINES - len(index)) // TOPICS)  # rounded up: at least LINES lines in all
    for n in range(TOPICS):
        lines = ["---", f"name: topic-{n}", f"description: part {n} of the shop", "type: project", "---",
                 f"# Topic {n}", ""]
        lines += [f"- fact {k} of topic {n}: the cache key for tenant {k} expires after {k % 60} minutes"
                  for k in range(per_topic - len(lines))]
        (folder / f"topic-{n}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _setup(workdir: Path) -> tuple[dict[str, str], Path, Path, str]:
    home = workdir / "tracking-home"
    project = workdir / "tracking-project"
    for path in (home, project):
        if path.exists():
            subprocess.run(("rm", "-rf", str(path)), check=True)
        path.mkdir(parents=True)
    (home / ".gitconfig").write_text("[user]\n\tname = bench\n\temail = bench@example.invalid\n", encoding="utf-8")
    subprocess.run(("git", "init", "--quiet"), cwd=project, check=True)
    variables = env(HOME=str(home), PATH=f"{Path(APM[0]).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    for name in ("XDG_DATA_HOME", "CLAUDE_CONFIG_DIR"):
        variables.pop(name, None)
    folder = _folder(home, project)
    subprocess.run((*APM, "track", "claude-code"), cwd=project, env=variables, capture_output=True, check=True)
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    (command,) = [hook["command"] for group in settings["hooks"]["SessionEnd"] for hook in group["hooks"]]
    return variables, project, folder, str(command)


def _hook(command: str, project: Path, variables: dict[str, str], cpu: list[float]) -> float:
    payload = json.dumps({"session_id": "bench", "transcript_path": "", "cwd": str(project),
                          "hook_event_name": "SessionEnd", "reason": "exit"})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(("/bin/sh", "-c", command), input=payload.encode(), cwd=project, env=variables,
                          capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(f"the snapshot hook failed ({proc.returncode}): {proc.stderr.decode()[-300:]}")
    return elapsed


def _floor(folder: Path, git_dir: Path, variables: dict[str, str]) -> float:
    """A Python process that runs the one `git status` a snapshot starts with: what any such hook costs."""
    code = ("import subprocess,sys;subprocess.run(('git','status','--porcelain','-z','--untracked-files=all','--',"
            "'.'),cwd=sys.argv[1],capture_output=True,check=True)")
    start = time.perf_counter()
    subprocess.run((sys.executable, "-c", code, str(folder)), env={**variables, "GIT_DIR": str(git_dir),
                                                                    "GIT_WORK_TREE": str(folder)}, check=True)
    return time.perf_counter() - start


def run_section(ctx: Context) -> list[Row]:
    variables, project, folder, command = _setup(ctx.workdir)
    git_dir = next((Path(variables["HOME"]) / ".local" / "share" / "apm-git" / "tracked").glob("*.git"))
    lines = sum(path.read_text(encoding="utf-8").count("\n") for path in folder.glob("*.md"))
    cpu: list[float] = []

    def changed(round_: int) -> float:
        topic = folder / f"topic-{round_ % TOPICS}.md"
        with topic.open("a", encoding="utf-8") as handle:
            handle.write(f"- learnt in session {round_}: the deploy needs the cache warmed\n")
        return _hook(command, project, variables, cpu)

    snapshots, floors = alternate(ctx.repeat, changed, lambda _: _floor(folder, git_dir, variables))
    snapshot = median_of(snapshots)
    quiet_cpu: list[float] = []
    quiet = median_of([_hook(command, project, variables, quiet_cpu) for _ in range(ctx.repeat)])
    return [
        Row(SECTION, f"SessionEnd snapshot hook, {lines:,} lines, 1 change", snapshot, median_of(floors),
            f"<= {TARGET}s", snapshot <= TARGET,
            f"CPU {median_of(cpu):.3f}s; {paired_ratio(snapshots, floors):.2f}x the floor round by round"),
        Row(SECTION, "  the same hook, nothing changed", quiet, None, f"<= {TARGET}s", quiet <= TARGET,
            f"CPU {median_of(quiet_cpu):.3f}s"),
    ]
