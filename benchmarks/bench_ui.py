"""Issue 27: `apm-git ui` on the large repository (20,000 entries, 5,000 commits): each view <= 0.2 s, the charts
of the whole history <= 1 s.

`apm-git ui` runs as a process on a copy of the large repository; each view is one HTTP request, timed from
the request to the last byte; baseline: the stylesheet (the server's own floor: token check, routing, one
small file).  The charts are timed warm (the history's rows cached by commit id, as every view after the
first finds them) and cold: the history read once, with no cache (`git log -p -U0` over 5,000 commits),
which `apm-git ui` does in the background as it starts; the lives of entries come from the same reading.
"""
from __future__ import annotations

import http.client
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from harness import APM, Context, Row, alternate, env, median_of, run

SECTION = "ui"
VIEW_TARGET = 0.2
CHART_TARGET = 1.0


class Page:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "", parts.port or 0
        self.token = parts.query.removeprefix("t=")

    def get(self, where: str, **params: str) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=120)
        try:
            connection.request("GET", f"{where}?{urlencode({'t': self.token, **params})}",
                               headers={"Host": f"{self.host}:{self.port}"})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def timed(self, where: str, **params: str) -> Callable[[int], float]:
        def one(_: int) -> float:
            started = time.perf_counter()
            status, _body = self.get(where, **params)
            if status != 200:
                raise RuntimeError(f"GET {where} answered {status}")
            return time.perf_counter() - started
        return one


def start(root: Path) -> tuple[subprocess.Popen[str], Page]:
    proc = subprocess.Popen((*APM, "ui"), cwd=root, env=env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        raise RuntimeError(f"apm-git ui printed {line!r}")
    return proc, Page(line.split()[-1])


def cold_charts(root: Path) -> tuple[float, int]:
    """The history (charts and lives) read with no cache, in this process: seconds and commits."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from apm_git.store.repo import open_repo
    from apm_git.ui import timeline

    repo = open_repo(root)
    (repo.state_dir / timeline.CACHE).unlink(missing_ok=True)
    started = time.perf_counter()
    read = timeline.read(repo)
    assert read is not None
    return time.perf_counter() - started, len(read.rows)


def run_section(ctx: Context) -> list[Row]:
    root = ctx.fresh_copy("large", "ui")
    entry, archived = ctx.repos["large"].live_ids[0], ctx.repos["large"].archived_ids[-1]
    today = sorted(path.stem for path in (root / "memory").glob("20*.md"))[-1]
    proposed = run((*APM, "rem", "--propose", "--force"), root, APM_GIT_NOW=f"{today}T12:00:00+00:00")
    name = next(word for word in proposed.stdout.decode().split() if word.startswith("apm-git/proposals/"))
    name = name.removeprefix("apm-git/proposals/")
    items = proposed.stdout.decode().count("\n  Apm-")
    cold, commits = cold_charts(root)
    proc, page = start(root)
    try:
        for path, params in (("/", {"q": "deploy"}), ("/charts", {})):
            deadline = time.monotonic() + 300
            while b"svg" not in page.get(path, **params)[1] and path == "/charts" and time.monotonic() < deadline:
                time.sleep(0.5)  # the history is read once, in the background, as the server starts
        views = {
            "memory as loaded (every file, budgets)": page.timed("/"),
            "search 'deploy'": page.timed("/", q="deploy"),
            "a file (decisions.md, its entries)": page.timed("/file", path="memory/decisions.md"),
            "an entry's life (a live entry)": page.timed(f"/entry/{entry}"),
            "an entry's life (an archived entry)": page.timed(f"/entry/{archived}"),
            "proposals": page.timed("/proposals"),
            f"a proposal of {items} items (REM)": page.timed(f"/proposals/{name}"),
            f"charts of {commits} commits (warm)": page.timed("/charts"),
        }
        samples = alternate(ctx.repeat, page.timed("/static/style.css"), *views.values())
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    baseline = median_of(samples[0])
    rows = []
    for (name, _), taken in zip(views.items(), samples[1:], strict=True):
        target = CHART_TARGET if name.startswith("charts") else VIEW_TARGET
        seconds = median_of(taken)
        rows.append(Row(SECTION, name[:44], seconds, baseline, f"<= {target:g}s", seconds <= target,
                        "(baseline: the stylesheet)"))
    rows.append(Row(SECTION, f"history read cold ({commits} commits)", cold, None, "", None,
                    "(one sample, no cache: once per repository, in the background as the page starts; "
                    "charts and lives both come from it)"))
    return rows
