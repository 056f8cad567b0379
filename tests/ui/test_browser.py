"""The page in a real browser: headless Chromium (Debian's `chromium`, driven by Playwright with the system
executable; no browser is downloaded) loads the page, searches, accepts part of a proposal and forgets an
entry; then the commits are checked in git.  Screenshots of the main views go under the test's tmp folder."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from apm_git.model import trailers
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git
from tests.ui.server import serve

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
MARCH = {"APM_GIT_NOW": "2026-03-01T10:00:00+00:00"}
JUNE = {"APM_GIT_NOW": "2026-06-01T10:00:00+00:00"}


def lesson(day: str, title: str, value: str, used: str, hits: int = 0) -> str:
    return (f"## [{day}] {title}\n- Tags: lesson, ops\n- Fitness: last_referenced={used}, hit_count={hits}, "
            f"decision_value={value}\n- Body: {title}: what went wrong and the fix.\n\n")


LESSONS = "# Lessons\n\n" + "".join(lesson(f"2026-02-0{i}", f"Old lesson {i}", "LOW", f"2026-02-0{i}")
                                    for i in range(1, 5))
DECISIONS = ("# Decisions\n\n" + lesson("2026-02-20", "Redis for the session cache", "HIGH", "2026-05-30", 6)
             .replace("lesson, ops", "decision, cache")
             + lesson("2026-02-21", "Pin the CI runner image", "MEDIUM", "2026-05-28", 2).replace("lesson", "decision"))


def browser_or_skip() -> object:
    """Playwright is in the test extra, so it is always there; only the browser may be missing."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: `apt-get install chromium` (.ci/run installs it)")
    from playwright.sync_api import sync_playwright

    return sync_playwright


@pytest.mark.slow
def test_search_accept_part_of_a_proposal_and_forget_in_a_browser(
    repo: MemoryRepo, run_cli: Invoke, tmp_path: Path,
) -> None:
    sync_playwright = browser_or_skip()
    (repo.memory / "lessons.md").write_text(LESSONS)
    (repo.memory / "decisions.md").write_text(DECISIONS)
    assert run_cli("--repo", str(repo.root), "flush", env=MARCH).exit_code == 0
    proposed = run_cli("--repo", str(repo.root), "rem", "--propose", env=JUNE)
    assert "proposed on branch apm-git/proposals/rem-2026-06-01" in proposed.stdout, proposed.stderr
    shots = tmp_path / "screenshots"
    shots.mkdir()
    with serve(repo.root, env=JUNE) as served, sync_playwright() as driver:  # type: ignore[operator]
        context = driver.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, args=ARGS, headless=True,
            viewport={"width": 1200, "height": 900})
        try:
            page = context.new_page()
            page.goto(served.url)
            assert page.inner_text("h1") == "Memory as the agent loads it"
            page.screenshot(path=str(shots / "memory.png"), full_page=True)

            page.fill("input[name=q]", "session cache")
            page.click("form.search button")
            hits = page.locator("section.results li")
            assert hits.count() >= 1 and "2026-02-20-redis-for-the-session-cache" in hits.first.inner_text()
            page.screenshot(path=str(shots / "search.png"), full_page=True)
            hits.first.locator("a").click()
            assert page.inner_text("h1") == "2026-02-20-redis-for-the-session-cache"
            assert page.locator("ol.timeline li").count() >= 1
            page.screenshot(path=str(shots / "entry.png"), full_page=True)

            page.click("nav >> text=Proposals")
            page.click("text=rem-2026-06-01")
            boxes = page.locator("input[name=accept]")
            assert boxes.count() == 5  # four to archive, one to mark proven
            page.uncheck("input[value='2026-02-01-old-lesson-1']")
            page.screenshot(path=str(shots / "proposal.png"), full_page=True)
            page.click("text=Accept the checked items as one commit")
            assert "accepted 4 item(s) of rem-2026-06-01" in page.inner_text("main")

            page.goto(served.url.replace("/?", "/entry/2026-02-21-pin-the-ci-runner-image?"))
            page.fill("input[name=reason]", "the runner is gone")
            page.click("form.forget button")
            assert "forgot 2026-02-21-pin-the-ci-runner-image" in page.inner_text("main")

            page.goto(served.url.replace("/?", "/charts?"))
            for _ in range(50):
                if page.locator("svg.chart").count():
                    break
                page.wait_for_timeout(200)
                page.reload()
            assert page.locator("svg.chart polyline").count() == 3
            page.screenshot(path=str(shots / "charts.png"), full_page=True)
        finally:
            context.close()
    subjects = git(repo.root, "log", "-3", "--format=%s").splitlines()
    assert subjects == ["memory: forget 1 entry", "memory: rem archived 3, proven 1",
                        "memory: flush 4 files (manual, all)"]
    accepted = trailers.parse(git(repo.root, "log", "-1", "--skip=1", "--format=%B"))
    assert ("Apm-Proposal", "rem-2026-06-01 (accepted 4 of 5 items)") in accepted
    forgot = trailers.parse(git(repo.root, "log", "-1", "--format=%B"))
    assert ("Apm-Forget", "2026-02-21-pin-the-ci-runner-image memory/decisions.md — the runner is gone") in forgot
    assert "Old lesson 1" in git(repo.root, "show", "HEAD:memory/lessons.md")
    assert git(repo.root, "for-each-ref", "refs/heads/apm-git/") == ""
    assert run_cli("--repo", str(repo.root), "lint", "--from-ref", "HEAD~2", "--to-ref", "HEAD").exit_code == 0
    assert sorted(path.name for path in shots.iterdir()) == [
        "charts.png", "entry.png", "memory.png", "proposal.png", "search.png"]
    keep = Path(__file__).resolve().parents[2] / "docs" / "ui-screenshots"
    if keep.is_dir():  # `mkdir docs/ui-screenshots` before a run to refresh the README's picture by hand
        for path in shots.iterdir():
            shutil.copy(path, keep / path.name)
