"""`apm-git ui` over real HTTP: the token, Host and Origin checks, paths checked against the memory's listing,
hostile memory text escaped, writes as POSTs through the command line's code, and --read-only."""
from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from apm_git.commands.flush import flush
from apm_git.model import trailers
from apm_git.store.repo import MemoryRepo
from tests.conftest import git
from tests.ui.server import Served, serve

NOW = {"APM_GIT_NOW": "2026-04-06T10:00:00+00:00"}
HOSTILE = '<script>alert("x")</script>'
DECISIONS = (
    "# Decisions\n\n"
    "## [2026-01-15] Use Redis\n- Tags: decision, cache\n"
    "- Fitness: last_referenced=2026-01-15, hit_count=2, decision_value=HIGH\n- Body: Redis for sessions.\n\n"
    "## [2026-01-16] Beware quotes\n- Tags: decision, <b>bold</b>\n"
    "- Fitness: last_referenced=2026-01-16, hit_count=0, decision_value=MEDIUM\n"
    f"- Body: {HOSTILE} and \"><img src=x onerror=alert(1)>\n\n"
)


@pytest.fixture
def page(repo: MemoryRepo) -> Iterator[Served]:
    (repo.memory / "decisions.md").write_text(DECISIONS)
    assert flush(repo).commit
    with serve(repo.root, env=NOW) as served:
        yield served


@pytest.mark.slow
def test_every_request_needs_the_token_and_this_host(page: Served) -> None:
    assert page.host == "127.0.0.1" and len(page.token) >= 40
    assert page.request("GET", "/")[0] == 200
    assert page.request("GET", "/", token=False)[0] == 403
    wrong = page.token[:-1] + ("A" if page.token[-1] != "A" else "B")  # one character off, never the token itself
    assert page.request("GET", "/", token=False, params={"t": wrong})[0] == 403
    assert page.request("GET", "/static/style.css", token=False)[0] == 403
    status, _, body = page.request("GET", "/", headers={"Host": f"evil.example:{page.port}"})
    assert status == 421 and "answers only to the address it printed" in body
    assert page.request("PUT", "/")[0] == 405
    status, _, body = page.request("POST", "/entry/2026-01-15-use-redis/hit", form={"t": page.token},
                                   headers={"Origin": "http://evil.example"})
    assert status == 403 and "another site" in body
    status, headers, _ = page.request("GET", "/")
    assert "script-src" not in headers["content-security-policy"] and "default-src 'none'" in headers[
        "content-security-policy"]
    assert headers["referrer-policy"] == "same-origin" and headers["x-frame-options"] == "DENY"


def test_no_request_path_reaches_the_disk_unchecked(page: Served) -> None:
    assert page.request("GET", "/file", params={"path": "memory/decisions.md"})[0] == 200
    for path in ("../../../etc/passwd", "/etc/passwd", "apm.yaml", "memory/../apm.yaml", "memory/flush-state.json"):
        status, _, body = page.request("GET", "/file", params={"path": path})
        assert status == 404 and "root:" not in body, path
    assert page.request("GET", "/entry/..%2F..%2Fetc%2Fpasswd")[0] == 404
    assert page.request("GET", "/proposals/..%2F..%2FHEAD")[0] == 404
    assert page.request("GET", "/static/..%2F..%2F__init__.py")[0] == 404


@pytest.mark.slow
def test_memory_text_is_escaped_everywhere(page: Served) -> None:
    for path, params in (("/", {}), ("/", {"q": "script alert"}), ("/file", {"path": "memory/decisions.md"}),
                         ("/entry/2026-01-16-beware-quotes", {}), ("/", {"msg": HOSTILE})):
        status, _, body = page.request("GET", path, params=params)
        assert status == 200, path
        assert "<script>" not in body and "<img src=x" not in body and "<b>bold</b>" not in body, (path, params)
    body = page.request("GET", "/file", params={"path": "memory/decisions.md"})[2]
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in body


@pytest.mark.slow
def test_a_write_is_a_post_with_the_token_and_one_commit(page: Served, repo: MemoryRepo) -> None:
    before = git(repo.root, "rev-parse", "HEAD").strip()
    assert page.request("GET", "/entry/2026-01-15-use-redis/hit")[0] == 405
    assert page.request("POST", "/entry/2026-01-15-use-redis/hit", form={})[0] == 403
    assert git(repo.root, "rev-parse", "HEAD").strip() == before
    status, headers, _ = page.request("POST", "/entry/2026-01-15-use-redis/hit", form={"t": page.token})
    assert status == 303 and "msg=hit+committed" in headers["location"]
    assert git(repo.root, "log", "-1", "--format=%s") == "memory: hit 1 entry\n"
    status, headers, _ = page.request("POST", "/entry/2026-01-15-use-redis/forget", form={"t": page.token,
                                                                                          "reason": "  "})
    assert status == 303 and "err=" in headers["location"]
    status, headers, _ = page.request("POST", "/entry/2026-01-15-use-redis/forget",
                                      form={"t": page.token, "reason": "moved to Valkey"})
    assert status == 303 and "forgot+2026-01-15-use-redis" in headers["location"]
    message = git(repo.root, "log", "-1", "--format=%B")
    assert ("Apm-Forget", "2026-01-15-use-redis memory/decisions.md — moved to Valkey") in trailers.parse(message)


@pytest.mark.slow
def test_an_edit_that_would_lose_the_entry_shows_the_command_lines_refusal(page: Served, repo: MemoryRepo) -> None:
    before = git(repo.root, "rev-parse", "HEAD").strip()
    text = DECISIONS.split("\n\n")[1].replace("Use Redis", "Use Valkey")
    status, headers, _ = page.request("POST", "/entry/2026-01-15-use-redis/edit", form={"t": page.token, "text": text})
    assert status == 303
    location = headers["location"]
    shown = page.request("GET", location.split("?")[0], token=False, params=dict(
        part.split("=", 1) for part in location.split("?")[1].split("&")))[2]
    assert re.search(r"which would lose 2026-01-15-use-redis", shown.replace("+", " "))
    assert git(repo.root, "rev-parse", "HEAD").strip() == before


@pytest.mark.slow
def test_read_only_refuses_every_write_and_shows_no_form(repo: MemoryRepo) -> None:
    (repo.memory / "decisions.md").write_text(DECISIONS)
    assert flush(repo).commit
    with serve(repo.root, "--read-only", env=NOW) as page:
        before = git(repo.root, "rev-parse", "HEAD").strip()
        status, _, body = page.request("POST", "/entry/2026-01-15-use-redis/hit", form={"t": page.token})
        assert status == 403 and "read-only" in body
        for path in ("/", "/entry/2026-01-15-use-redis", "/proposals"):
            assert 'method="post"' not in page.request("GET", path)[2]
        assert git(repo.root, "rev-parse", "HEAD").strip() == before


def test_control_characters_and_ci_commands_are_printed_as_the_command_line_prints_them(
    page: Served, repo: MemoryRepo,
) -> None:
    (repo.memory / "lessons.md").write_text(
        "# Lessons\n\n## [2026-04-01] Trust \u202etxt.exe\n- Tags: lesson\n"
        "- Fitness: last_referenced=2026-04-01, hit_count=0, decision_value=LOW\n"
        "- Body: copy \x1b]52;c;ZWNobyBoaQ==\x07 this\n\n## Notes\n::error file=x::owned ##[warning]too\n")
    body = page.request("GET", "/file", params={"path": "memory/lessons.md"})[2]
    for raw in ("\u202e", "\x1b", "\x07", "\n::error", "##[warning"):
        assert raw not in body, repr(raw)
    assert "Trust \\u202etxt.exe" in body and "copy \\u001b]52;c;ZWNobyBoaQ==\\u0007 this" in body
    assert ":\\u003aerror file=x::owned ##\\u005bwarning]too" in body


AWS_KEY = "AKIA" + "Q7XW2M4KZP3RT9BN"  # fake, of the real shape


@pytest.mark.slow
def test_a_section_that_holds_a_suspected_secret_is_never_shown(page: Served, repo: MemoryRepo) -> None:
    secret = ("## [2026-04-02] Deploy key\n- Tags: decision\n"
              "- Fitness: last_referenced=2026-04-02, hit_count=0, decision_value=HIGH\n"
              f"- Body: the deploy key id is {AWS_KEY} for staging\n\n")
    decisions = repo.memory / "decisions.md"
    decisions.write_text(DECISIONS + secret)  # committed past the hooks: the history holds it too
    git(repo.root, "add", "memory/decisions.md")
    git(repo.root, "commit", "-q", "--no-verify", "-m", "by hand")
    (repo.memory / "notes.md").write_text(f"# Notes\n\n## Staging\nkey {AWS_KEY} for staging\n\n## Other\nstaging db\n")
    entry = "/entry/2026-04-02-deploy-key"
    for path, params in (("/file", {"path": "memory/decisions.md"}), ("/file", {"path": "memory/notes.md"}),
                         ("/", {"q": "staging"}), (entry, {})):
        status, _, body = page.request("GET", path, params=params)
        assert status == 200 and AWS_KEY not in body and AWS_KEY[4:] not in body, (path, params)
        assert "left out here: this section holds what looks like a credential" in body, (path, params)
    for _ in range(100):  # the history is read as the page starts: the entry's life once it is
        body = page.request("GET", entry)[2]
        if 'class="timeline"' in body:
            break
        time.sleep(0.1)
    assert 'class="timeline"' in body and AWS_KEY not in body and "Deploy key" in body
    assert 'name="text"' not in body  # not offered for editing: the form would hold the note
    body = page.request("GET", "/file", params={"path": "memory/notes.md"})[2]
    assert "staging db" in body  # the other section is shown
