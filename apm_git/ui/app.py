"""The page's views (Starlette routes): reads, and the writes that call the command line's own code.

Every write is a POST carrying the token in its form (apm_git/ui/server.py checked the URL's
already), runs one at a time, and calls what the command line calls: `forget` (commands/forget.py),
`edit`, `hit --commit` and `restore` (operations/curate.py), `accept` and `reject`
(operations/proposals.py).  A refusal is the command line's one line, shown on the page.
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from apm_git.errors import ApmGitError
from apm_git.model.entry_id import is_entry_id
from apm_git.store.repo import MemoryRepo, open_repo
from apm_git.ui import pages
from apm_git.ui.server import token_matches
from apm_git.ui.withholding import Withholding

MAX_FORM_BYTES = 256 * 1024  # an edited record, a reason: far below this
SPARK_FILES = 24  # files drawn against their budget: the fullest first


class Seat:
    """The page's state: where the memory is, the token, the mode, one writer at a time, the charts' cache."""

    def __init__(self, repo_path: Path, token: str, read_only: bool) -> None:
        self.repo_path = repo_path
        self.token = token
        self.read_only = read_only
        self.writing = threading.Lock()
        self.history = threading.Lock()  # held while the history is read for the charts
        self.known: Any = None  # the history as last read (ui/timeline.py), kept in memory
        self.counted: dict[str, tuple[int, int, int, int]] = {}  # file -> size, mtime, lines, entries

    def repo(self) -> MemoryRepo:
        return open_repo(self.repo_path)

    def timeline(self, repo: MemoryRepo) -> Any:
        """The history read for the charts and the lives (ui/timeline.py); None while the first reading runs."""
        from apm_git.ui import timeline

        if not self.history.acquire(timeout=0.05):
            return None
        try:
            self.known = timeline.read(repo, self.known) or timeline.Timeline("", [], {}, {})
            return self.known
        finally:
            self.history.release()

    def page(self, repo: MemoryRepo) -> pages.Page:
        return pages.Page(self.token, self.read_only, repo.root.name)

    def warm(self) -> None:
        from apm_git.ui import timeline

        with self.history, contextlib.suppress(ApmGitError):
            self.known = timeline.read(self.repo(), self.known)


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status)


def _said(request: Request) -> tuple[str, bool]:
    params = request.query_params
    return (params.get("err") or params.get("msg") or "")[:500], bool(params.get("err"))


def make_app(repo_path: Path, token: str, *, read_only: bool = False) -> Starlette:
    seat = Seat(repo_path, token, read_only)

    def memory(request: Request) -> Response:
        from apm_git.ui import reading

        repo = seat.repo()
        page = seat.page(repo)
        query = request.query_params.get("q", "").strip()[:200]
        found = ""
        if query:
            from apm_git.commands.search import search

            hold = Withholding(repo)
            result = search(repo, query, limit=50)
            if result is not None:
                result.hits = hold.hits(result.hits)
            hold.save()
            found = pages.search_results(page, query, result)
        message, error = _said(request)
        body = pages.overview(page, reading.overview(repo, counted=seat.counted), found)
        return _html(page.frame("Memory as the agent loads it", body, message=message, error=error, query=query))

    def file(request: Request) -> Response:
        from apm_git.ui import reading

        repo = seat.repo()
        page = seat.page(repo)
        wanted = request.query_params.get("path", "")
        listed = {repo.repo_path(rel): rel for rel in repo.markdown_files()}
        if wanted not in listed:  # only a path the memory's own listing holds reaches the disk
            return _html(page.frame("No such memory file", "<p>Pick a file from the memory.</p>"), 404)
        hold = Withholding(repo)
        row, shown = reading.file_view(repo, listed[wanted], hold)
        hold.save()
        return _html(page.frame(row.path, pages.file_page(page, row, shown)))

    def entry(request: Request) -> Response:
        from apm_git.operations.curate import find_committed
        from apm_git.ui import reading

        entry_id = request.path_params["entry_id"]
        repo = seat.repo()
        page = seat.page(repo)
        if not is_entry_id(entry_id):
            return _html(page.frame("Not an entry id", "<p>Entry ids look like 2026-04-06-redis-cache.</p>"), 404)
        read = seat.timeline(repo)
        # Where HEAD holds it: the file of its last step, else (a history not read yet) a search of HEAD.
        found = reading.committed(repo, entry_id, read)
        if found is None and read is None:
            with contextlib.suppress(ApmGitError):
                done = find_committed(repo, entry_id)
                found = done.path, done.record
        view = path = None
        hold = Withholding(repo)
        if found is not None:
            from apm_git import clock

            path, view = found[0], reading.entry_view(repo, found[1], clock.today(), hold, found[0])
        steps, why = reading.life(repo, entry_id, read, hold) if read is not None else (
            [], "the history is being read (once, as the page starts); reload in a moment")
        hold.save()
        message, error = _said(request)
        return _html(page.frame(entry_id, pages.entry_page(page, view, path, steps, why), message=message,
                                error=error))

    def charts_view(request: Request) -> Response:
        from apm_git.ui import charts

        repo = seat.repo()
        page = seat.page(repo)
        read = seat.timeline(repo)
        if read is None:
            return _html(page.frame("Memory over time", pages.charts_page(page, "", [], 0, pending=True)))
        every = read.rows
        budgets = []
        for rel in repo.markdown_files():
            budget = repo.config.budget_for(rel)
            if budget and not rel.startswith("archive/"):
                budgets.append((repo.count_lines(rel) / budget, repo.repo_path(rel), budget))
        chosen = sorted(budgets, reverse=True)[:SPARK_FILES]
        data = charts.series(repo, every, [path for _, path, _ in chosen])
        sparks = [charts.file_chart(path, data.lines[path], budget) for _, path, budget in chosen]
        body = pages.charts_page(page, charts.entries_chart(data), sparks, len(every), pending=False)
        return _html(page.frame("Memory over time", body))

    def proposals_view(request: Request) -> Response:
        from apm_git.operations import proposals as offered

        repo = seat.repo()
        page = seat.page(repo)
        message, error = _said(request)
        return _html(page.frame("Proposals", pages.proposals_page(page, offered.open_proposals(repo)),
                                message=message, error=error))

    def proposal_view(request: Request) -> Response:
        from apm_git.operations import proposals as offered

        repo = seat.repo()
        page = seat.page(repo)
        found = offered.by_name(repo, request.path_params["name"])
        if found is None:
            return _html(page.frame("No such proposal", "<p>It was accepted or rejected, or never made.</p>"), 404)
        message, error = _said(request)
        hold = Withholding(repo)
        where = {item.key: next((word for word in item.detail.replace("(", " ").split()
                                 if word.startswith(repo.memory_prefix + "/")), "") for item in found.items}
        blocks = {key: (hold.text(where[key], before), hold.text(where[key], after)) for key, (before, after) in
                  offered.item_blocks(repo, found, pages.MAX_DIFFS).items()}
        hold.save()
        return _html(page.frame(f"Proposal {found.name}", pages.proposal_page(page, found, blocks),
                                message=message, error=error))

    def stylesheet(request: Request) -> Response:
        css = resources.files("apm_git.ui").joinpath("static/style.css").read_text(encoding="utf-8")
        return Response(css, media_type="text/css")

    # --- writes ------------------------------------------------------------------------------------

    def write(action: Callable[[MemoryRepo, Request, dict[str, Any]], tuple[str, str]]) -> Callable[..., Any]:
        """A POST: the form's token checked, one writer at a time, the outcome shown on the page it returns to."""

        async def endpoint(request: Request) -> Response:
            if seat.read_only:
                return Response("apm-git: the page is read-only (apm-git ui --read-only)\n", status_code=403,
                                media_type="text/plain")
            length = int(request.headers.get("content-length") or 0)
            if length > MAX_FORM_BYTES:
                return Response("apm-git: the form is too large\n", status_code=413, media_type="text/plain")
            form = await request.form(max_files=0, max_fields=2000)
            if not token_matches(_text(form.get("t")), seat.token):
                return Response("apm-git: the form lacks the token\n", status_code=403, media_type="text/plain")
            fields = {"accept": [_text(value) for value in form.getlist("accept")],
                      **{key: _text(form.get(key)) for key in ("reason", "text")}}
            from starlette.concurrency import run_in_threadpool

            return await run_in_threadpool(_run, action, request, fields)

        return endpoint

    def _run(action: Callable[[MemoryRepo, Request, dict[str, Any]], tuple[str, str]], request: Request,
             fields: dict[str, Any]) -> Response:
        with seat.writing:
            try:
                target, message = action(seat.repo(), request, fields)
                said = {"msg": message}
            except ApmGitError as error:
                target, said = _back(request), {"err": str(error)}
        return RedirectResponse(f"{target}?{urlencode({'t': seat.token, **said})}", status_code=303)

    def _entry_id(request: Request) -> str:
        entry_id = str(request.path_params["entry_id"])
        if not is_entry_id(entry_id):
            from apm_git.errors import UsageError

            raise UsageError(f"{entry_id!r} is not an entry id")
        return entry_id

    def hit(repo: MemoryRepo, request: Request, fields: dict[str, Any]) -> tuple[str, str]:
        from apm_git.operations.curate import hit_committed

        done = hit_committed(repo, [_entry_id(request)])
        return _back(request), f"hit committed as {done.commit[:12]}"

    def edit(repo: MemoryRepo, request: Request, fields: dict[str, Any]) -> tuple[str, str]:
        from apm_git.operations.curate import edit as edit_entry

        done = edit_entry(repo, _entry_id(request), fields.get("text") or "")
        return _back(request), f"edit committed as {done.commit[:12]}"

    def restore(repo: MemoryRepo, request: Request, fields: dict[str, Any]) -> tuple[str, str]:
        from apm_git.operations.curate import restore as restore_entry

        done = restore_entry(repo, _entry_id(request))
        return _back(request), f"restored to {done.files[-1]} as {done.commit[:12]}"

    def forget(repo: MemoryRepo, request: Request, fields: dict[str, Any]) -> tuple[str, str]:
        from apm_git.commands.forget import forget as forget_entries

        entry_id = _entry_id(request)
        done = forget_entries(repo, [entry_id], fields.get("reason") or "")
        return "/", f"forgot {entry_id} as {done.commit[:12]} ({done.reason})"

    def accept(repo: MemoryRepo, request: Request, fields: dict[str, Any]) -> tuple[str, str]:
        from apm_git.operations import proposals as offered

        name = str(request.path_params["name"])
        found = offered.by_name(repo, name)
        if found is None:
            from apm_git.errors import FindingsError

            raise FindingsError(f"no open proposal {name}; `apm-git proposals` lists them")
        chosen = [key for key in fields["accept"] if key]
        dropped = [item.key for item in found.items if item.key not in chosen]
        if not chosen:
            from apm_git.errors import UsageError

            raise UsageError("no item checked: check the items to accept, or reject the proposal")
        done = offered.accept(repo, name, drop=dropped)
        return "/proposals", done.summary

    def reject(repo: MemoryRepo, request: Request, fields: dict[str, Any]) -> tuple[str, str]:
        from apm_git.operations import proposals as offered

        name = str(request.path_params["name"])
        offered.reject(repo, name)
        return "/proposals", f"rejected {name}"

    def _back(request: Request) -> str:
        path = request.url.path
        for suffix in ("/hit", "/edit", "/restore", "/forget", "/accept", "/reject"):
            if path.endswith(suffix):
                return quote(path[: -len(suffix)])
        return "/"

    routes = [
        Route("/", memory), Route("/file", file), Route("/entry/{entry_id}", entry), Route("/charts", charts_view),
        Route("/proposals", proposals_view), Route("/proposals/{name}", proposal_view),
        Route("/static/style.css", stylesheet),
        Route("/entry/{entry_id}/hit", write(hit), methods=["POST"]),
        Route("/entry/{entry_id}/edit", write(edit), methods=["POST"]),
        Route("/entry/{entry_id}/restore", write(restore), methods=["POST"]),
        Route("/entry/{entry_id}/forget", write(forget), methods=["POST"]),
        Route("/proposals/{name}/accept", write(accept), methods=["POST"]),
        Route("/proposals/{name}/reject", write(reject), methods=["POST"]),
    ]
    async def refused(request: Request, error: Exception) -> Response:
        return Response(f"apm-git: {error}\n", status_code=409, media_type="text/plain")

    app = Starlette(routes=routes, exception_handlers={ApmGitError: refused})
    app.state.warm = seat.warm
    return app


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
