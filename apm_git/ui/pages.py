"""The page's HTML: plain strings, every piece of memory text through `e()`.

Memory text is hostile (an entry may hold `<script>`, a heading may hold quotes, a title a bidi override
or an escape sequence): nothing from the memory, git or a request reaches the page without `e()`, which
is the command line's escaping (apm_git/printable.py: control characters as backslash escapes, CI
workflow commands defused), then `html.escape`.  No script runs on the page (the Content
Security Policy of apm_git/ui/server.py forbids it); forms post with the token.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from typing import Any
from urllib.parse import quote, urlencode

from apm_git.printable import neutral
from apm_git.ui.reading import EntryView, FileRow, Layer, SectionView, Step


def e(value: object) -> str:
    """`value` as HTML text or attribute: printed as the command line prints it, then HTML-escaped."""
    text = str(value)
    if not text.isprintable() or ":" in text or "##" in text:  # else `neutral` has nothing to change
        text = neutral(text)
    return escape(text, quote=True)


class Page:
    """What every view needs to draw links and forms: the token, and whether writes are allowed."""

    def __init__(self, token: str, read_only: bool, repo_name: str) -> None:
        self.token = token
        self.read_only = read_only
        self.repo_name = repo_name

    def url(self, where: str, **params: str) -> str:
        return e(f"{where}?{urlencode({'t': self.token, **{k: v for k, v in params.items() if v}})}")

    def form(self, path: str, button: str, fields: str = "", *, css: str = "") -> str:
        if self.read_only:
            return ""
        return (f'<form method="post" action="{self.url(path)}" class="{e(css)}">'
                f'<input type="hidden" name="t" value="{e(self.token)}">{fields}'
                f'<button type="submit">{e(button)}</button></form>')

    def frame(self, title: str, body: str, *, message: str = "", error: bool = False, query: str = "") -> str:
        note = f'<p class="{"error" if error else "message"}" role="status">{e(message)}</p>' if message else ""
        mode = '<span class="badge">read-only</span>' if self.read_only else ""
        return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{e(title)} · apm-git</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="{self.url('/static/style.css')}"></head>
<body><header><strong>apm-git</strong> <span class="repo">{e(self.repo_name)}</span> {mode}
<nav><a href="{self.url('/')}">Memory</a> <a href="{self.url('/charts')}">Over time</a>
<a href="{self.url('/proposals')}">Proposals</a></nav>
<form method="get" action="/" class="search" role="search"><input type="hidden" name="t" value="{e(self.token)}">
<input type="search" name="q" value="{e(query)}" placeholder="search the memory" aria-label="search">
<button type="submit">Search</button></form></header>
<main>{note}<h1>{e(title)}</h1>{body}</main></body></html>"""


def bar(lines: int, budget: int | None) -> str:
    if budget is None:
        return f'<span class="nobudget">{lines} lines</span>'
    share = lines / budget if budget else 1.0
    css = "over" if lines > budget else "near" if share >= 0.8 else "ok"
    width = min(160.0, share * 160)  # SVG attributes, not a style: the Content Security Policy allows no inline style
    return (f'<svg class="bar {css}" width="160" height="10" role="img" aria-label="{lines} of {budget} lines">'
            f'<title>{lines} of {budget} lines</title><rect width="160" height="10" rx="5" class="track"/>'
            f'<rect width="{width:.0f}" height="10" rx="5" class="fill"/></svg> '
            f'<span class="figure">{lines}/{budget}</span>')


def file_link(page: Page, row: FileRow) -> str:
    return f'<a href="{page.url("/file", path=row.path)}">{e(row.path)}</a>'


def overview(page: Page, layers: Sequence[Layer], hits: str = "") -> str:
    parts = [hits]
    for layer in layers:
        rows = "".join(
            f"<tr><td>{file_link(page, row)}</td><td>{bar(row.lines, row.budget)}</td>"
            f"<td class=num>{row.entries}</td></tr>" for row in layer.files
        )
        parts.append(f'<section class="layer"><h2>{e(layer.title)} <small>{e(layer.note)}</small></h2>'
                     f'<table><thead><tr><th>file</th><th>lines / budget</th><th>entries</th></tr></thead>'
                     f'<tbody>{rows}</tbody></table></section>')
    return "".join(parts)


def search_results(page: Page, query: str, result: Any) -> str:
    if result is None:
        return ""
    items = []
    for hit in result.hits:
        target = page.url(f"/entry/{quote(hit.entry_id)}") if hit.entry_id else page.url("/file", path=hit.file)
        label = hit.entry_id or f"{hit.file}:{hit.line}"
        items.append(f'<li class="hit{" archived" if hit.archived else ""}"><a href="{target}">{e(label)}</a> '
                     f'<span class="where">{e(hit.file)}:{hit.line}</span><br><b>{e(hit.heading)}</b> '
                     f'{e(hit.snippet)}</li>')
    head = f"{result.total} section(s) match {query!r}" if result.total else f"nothing matches {query!r}"
    return f'<section class="results"><h2>{e(head)}</h2><ol>{"".join(items)}</ol></section>'


def entry_card(page: Page, entry: EntryView, *, link: bool = True) -> str:
    title = f'<a href="{page.url("/entry/" + quote(entry.entry_id))}">{e(entry.title)}</a>' if link else e(entry.title)
    proven = ' <span class="badge proven">PROVEN</span>' if entry.proven else ""
    conflict = f' <span class="badge conflict" title="{e(entry.conflicts)}">conflict</span>' if entry.conflicts else ""
    archived = f' <span class="badge archived" title="{e(entry.archived)}">archived</span>' if entry.archived else ""
    tags = "".join(f'<span class="tag">{e(tag)}</span>' for tag in entry.tags)
    fitness = (f"hits {entry.hits} · last used {e(entry.last_referenced)} · {e(entry.value)}"
               if entry.hits is not None else "no valid Fitness line")
    score = f' · score <b>{entry.score}</b>' if entry.score is not None else ""
    return (f'<article class="entry" id="{e(entry.entry_id)}"><h3>[{e(entry.date)}] {title}{proven}{conflict}{archived}'
            f'</h3><div class="meta"><code>{e(entry.entry_id)}</code> · line {entry.line} · {fitness}{score}</div>'
            f'<div class="tags">{tags}</div><p class="body">{e(entry.body)}</p></article>')


def file_page(page: Page, row: FileRow, shown: Iterable[EntryView | SectionView]) -> str:
    parts = [f'<p>{bar(row.lines, row.budget)} · {row.entries} entries</p>']
    for item in shown:
        if isinstance(item, EntryView):
            parts.append(entry_card(page, item))
        else:
            parts.append(f'<details class="section"><summary>{e(item.heading or "(text)")} '
                         f'<small>line {item.line}, {item.lines} lines</small></summary><pre>{e(item.text)}</pre>'
                         f'</details>')
    return "".join(parts)


def entry_page(page: Page, entry: EntryView | None, path: str | None, steps: Sequence[Step], why: str | None) -> str:
    parts = []
    if entry is not None and path is not None:
        parts.append(f'<p class="where">in {e(path)}</p>{entry_card(page, entry, link=False)}')
        parts.append(actions(page, entry))
    timeline = []
    for step in steps:
        where = f"{step.source} → {step.file}" if step.source else step.file
        diff = "".join(f'<span class="{_diff_class(line)}">{e(line)}</span>\n' for line in step.diff)
        timeline.append(
            f'<li class="step {e(step.what)}"><div><time>{e(step.date[:10])}</time> <b>{e(step.what)}</b> '
            f'<span class="where">{e(where)}</span> <code>{e(step.commit[:7])}</code> <small>{e(step.trigger)} · '
            f'{e(step.subject)}</small></div>{f"<pre class=diff>{diff}</pre>" if diff else ""}</li>')
    parts.append('<h2>Life</h2>' + (f'<ol class="timeline">{"".join(timeline)}</ol>' if timeline
                                     else f'<p class="empty">{e(why or "no history")}</p>'))
    return "".join(parts)


def _diff_class(line: str) -> str:
    return "add" if line.startswith("+") else "del" if line.startswith("-") else "ctx"


def actions(page: Page, entry: EntryView) -> str:
    if page.read_only:
        return '<p class="empty">read-only: no changes from this page</p>'
    base = "/entry/" + quote(entry.entry_id)
    if entry.archived:
        return f'<section class="actions">{page.form(base + "/restore", "Restore to its live file")}</section>'
    edit = "" if entry.withheld else ('<details><summary>Edit</summary>'
            + page.form(base + "/edit", "Save as one commit",
                        f'<textarea name="text" rows="8" cols="90" aria-label="record text">{e(entry.text)}</textarea>')
            + "</details>")
    forget = page.form(base + "/forget", "Forget",
                       '<input name="reason" required placeholder="why (goes into the commit)" aria-label="reason">',
                       css="forget")
    return f'<section class="actions">{page.form(base + "/hit", "Hit (used it)")}{forget}{edit}</section>'


def charts_page(page: Page, entries_svg: str, files_svg: Sequence[str], commits: int, pending: bool) -> str:
    if pending:
        return ('<p class="empty">Reading the history; this page shows the charts once it is read '
                '(<a href="' + page.url("/charts") + '">reload</a>).</p>')
    return (f'<p>{commits} commits that changed the memory, oldest to newest.</p><h2>Entries per stage</h2>'
            f'{entries_svg}<h2>Lines per file against its budget</h2><div class="sparks">{"".join(files_svg)}</div>')


def proposals_page(page: Page, proposals: Sequence[Any]) -> str:
    if not proposals:
        return ('<p class="empty">No open proposals. <code>apm-git dream --propose</code> (or <code>deep-sleep</code> '
                '/ <code>rem --propose</code>) makes one.</p>')
    rows = "".join(
        f'<tr><td><a href="{page.url("/proposals/" + quote(p.name))}">{e(p.name)}</a></td><td>{e(p.stage)}</td>'
        f'<td>{e(p.date[:10])}</td><td class=num>{len(p.items)}</td><td>{e(p.state)}</td></tr>' for p in proposals
    )
    return (f'<table><thead><tr><th>proposal</th><th>stage</th><th>made</th><th>items</th><th>state</th></tr></thead>'
            f'<tbody>{rows}</tbody></table>')


MAX_DIFFS = 200  # items of a proposal shown with their diff; the rest as a line each (a REM can mark thousands)


def proposal_page(page: Page, proposal: Any, blocks: dict[str, tuple[str | None, str | None]]) -> str:
    rows = []
    for at, item in enumerate(proposal.items):
        if at == MAX_DIFFS:
            rows.append(f'<li class="more">{len(proposal.items) - MAX_DIFFS} more items without their diff here: '
                        f'<code>apm-git diff HEAD...{e(proposal.branch)}</code> shows them all</li>')
        before, after = blocks.get(item.key, (None, None))
        diff = "".join(f'<span class="{_diff_class(line)}">{e(line)}</span>\n' for line in _diff(before, after))
        box = (f'<input type="checkbox" name="accept" value="{e(item.key)}" checked '
               f'aria-label="accept {e(item.key)}">' if not page.read_only else "")
        rows.append(f'<li class="item"><label>{box} <b>{e(item.verb)}</b> <code>{e(item.key)}</code> '
                    f'<span class="where">{e(item.detail.removeprefix(item.key).strip())}</span></label>'
                    f'{f"<pre class=diff>{diff}</pre>" if diff else ""}</li>')
    head = (f'<p>{e(proposal.stage)} proposed {e(proposal.date[:10])} on <code>{e(proposal.base[:12])}</code> · '
            f'{e(proposal.state)} · <code>apm-git accept {e(proposal.name)}</code></p>')
    body = f'<ol class="items">{"".join(rows)}</ol>'
    if page.read_only:
        return head + body
    accept = (f'<form method="post" action="{page.url("/proposals/" + quote(proposal.name) + "/accept")}">'
              f'<input type="hidden" name="t" value="{e(page.token)}">{body}'
              f'<button type="submit">Accept the checked items as one commit</button></form>')
    reject = page.form("/proposals/" + quote(proposal.name) + "/reject", "Reject the whole proposal", css="reject")
    return head + accept + reject


def _diff(before: str | None, after: str | None) -> list[str]:
    import difflib

    return list(difflib.unified_diff((before or "").split("\n") if before else [],
                                     (after or "").split("\n") if after else [], lineterm="", n=20))[2:]
