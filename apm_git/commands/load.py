"""`apm-git load`: progressive disclosure (docs/design.md 4) in its three modes.

- group: room id -> group name, the group's index first (the only entry gate), the single
  best-matching file of its routing table, at most one `conventions/` file that file names;
- main (DM): `main/index.md`, up to two files by its routing, today's and yesterday's journals,
  and the last flush time;
- dreaming (no scope): L1 = `INDEX.md` + today's and yesterday's journals, L2 = the category
  files of the intent's domain.

Every file passes the budget circuit breaker in order; group and DM files also pass the
session's loading discipline.  A load reads only the files of its own scope: a group load
never opens another group's files or `main/`, a DM load never opens anything under `groups/`.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import re

from apm_git import clock
from apm_git.dreaming.score import record_score
from apm_git.errors import ApmGitError, StateError, UnreadableFile, UnsafePath, UsageError
from apm_git.model import dated, domains, index_md, names
from apm_git.model.groups import check_group_name
from apm_git.model.records import Record, parse
from apm_git.model.routing import RouteChoice, RoutingTable, parse_routing, rank_routes, safe_file
from apm_git.model.vocabulary import LoadMode, LoadRole
from apm_git.model.withhold import WithheldSection
from apm_git.operations.load_guards import CONVENTIONS, Breaker, Discipline, LoadedFile, SkippedFile
from apm_git.operations.withheld import Redactor, uncommitted
from apm_git.store import layout, templates, tokens
from apm_git.store.repo import MemoryRepo
from apm_git.store.scope import Scope
from apm_git.store.session import Held, SessionState, session_state
from apm_git.store.state import load_flush_state, resolve_room

L1_SHARE = 0.5  # of the budget for L1: a huge L1 file is cut rather than starving L2 or the Hot Files' entries
HOT_ENTRIES = 12  # Hot Files' entries offered at session start
GUIDE = """## How to use this memory (apm-git)

- Write a decision the moment it is made (the iron rule), before you act on it:
  `apm-git journal add "what, and why" --kind decision` (also `--kind lesson|context|person|tool|pending`).
  In a group or the DM: `apm-git remember --scope group:NAME|main --decision "…"`.
- Recall more before you start a task: `apm-git load --intent "what you are about to do"`, or
  `apm-git search "words"` (any language); after using an entry, `apm-git hit ENTRY-ID`.
- `apm-git flush` commits memory (the hooks also do it at compaction and session end).
"""


def guide(program: str = "apm-git") -> str:
    """The guide with each command started as `program` (`apm-git --repo PATH` when the memory is not the
    folder the agent works in)."""
    return GUIDE.replace("`apm-git ", f"`{program} ")


RECALL_SECTIONS = 8  # sections the index may add to a load
# From the start of a path only, and a bounded path: `[\w./-]*` tried from every position is quadratic.
_CONVENTIONS_REF = re.compile(rf"(?<![\w./-])[\w./-]{{0,200}}{names.CONVENTIONS}/[\w./-]{{0,200}}\.md")


@dataclasses.dataclass
class LoadRoute:
    file: str
    priority: str
    hits: list[str]
    reason: str


@dataclasses.dataclass
class LoadResult:
    mode: LoadMode
    scope: str  # group:NAME, main or dreaming: what the session's discipline is kept for
    intent: str | None
    budget: int
    encoding: str
    session: str | None
    group: str | None = None
    room: str | None = None
    routes: list[LoadRoute] = dataclasses.field(default_factory=list)
    domain: str | None = None
    domain_hits: list[str] = dataclasses.field(default_factory=list)
    recall: str | None = None  # why the index was asked for sections, when it was
    guide: str | None = None  # session start: how to write and recall memory (not counted in the budget)
    files: list[LoadedFile] = dataclasses.field(default_factory=list)
    skipped: list[SkippedFile] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)
    last_flush: str | None = None  # DM: "YYYY-MM-DD HH:mm", or "never"
    withheld: list[WithheldSection] = dataclasses.field(default_factory=list)  # suspected secrets, uncommitted

    @property
    def tokens(self) -> int:
        return sum(item.tokens for item in self.files)


@dataclasses.dataclass(frozen=True)
class Target:
    """What to load: a group (by room or name), the DM memory, or neither (the Dreaming mount)."""

    group: str | None = None
    room: str | None = None
    main: bool = False


class _Run:
    """One load: the result being built, the breaker and the discipline."""

    def __init__(self, repo: MemoryRepo, result: LoadResult, held: list[Held]) -> None:
        self.repo = repo
        self.result = result
        self.counter = tokens.Counter(result.encoding, str(repo.state_dir / tokens.CACHE_FILE))
        self.breaker = Breaker(result.budget, self.counter)
        self.discipline = Discipline(repo.config.load, held)
        self.redactor = Redactor(repo)  # a section that holds a suspected secret never reaches the agent

    def read(self, rel: str, role: LoadRole, priority: str | None = None, *, missing: str) -> str | None:
        name = self.repo.repo_path(rel)
        try:
            text = self.repo.read(rel)
        except (UnreadableFile, UnsafePath) as error:  # damaged or huge, or a link into another memory
            self.breaker.skipped.append(SkippedFile(name, role, priority, str(error)))
            return None
        if text is None:
            self.breaker.skipped.append(SkippedFile(name, role, priority, missing))
            return None
        return self.redactor.text(name, text)

    def offer(self, rel: str, role: LoadRole, priority: str | None = None, *, missing: str,
              disciplined: bool = False) -> LoadedFile | None:
        name = self.repo.repo_path(rel)
        if disciplined:
            refusal = self.discipline.refusal(name, priority, role)
            if refusal is not None:
                self.breaker.skipped.append(SkippedFile(name, role, priority, refusal))
                return None
        text = self.read(rel, role, priority, missing=missing)
        if text is None:
            return None
        loaded = self.breaker.offer(name, text, role, priority)
        if loaded is not None and disciplined:
            self.discipline.hold(name, priority, role)
        return loaded

    def journals(self, today: dt.date) -> None:
        for day, label in ((today, "today"), (today - dt.timedelta(days=1), "yesterday")):
            self.offer(dated.journal_name(day), "journal", missing=f"no journal for {label} ({day.isoformat()})")


def load(
    repo: MemoryRepo,
    target: Target,
    *,
    intent: str | None = None,
    budget: int | None = None,
    session: str | None = None,
    fresh: bool = False,
) -> LoadResult:
    """Load what the protocol allows for `target`; `fresh` drops the session's earlier loads
    (the agent's context was cleared or compacted)."""
    intent = " ".join(intent.split()) if intent else None
    group = _group_of(repo, target)
    mode: LoadMode = "group" if group else "main" if target.main else "dreaming"
    result = LoadResult(
        mode=mode, scope=f"group:{group}" if group else mode, intent=intent or None,
        budget=budget or repo.config.memory_budget, encoding=repo.config.encoding, session=session,
        group=group, room=target.room,
    )
    if session is None:
        _run(repo, result, [])
        return result
    with session_state(repo, session) as state:
        state.files = _run(repo, result, _held_for(state, result, fresh))
    return result


def _held_for(state: SessionState, result: LoadResult, fresh: bool) -> list[Held]:
    if state.note:
        result.warnings.append(state.note)
    held = state.files
    if fresh and held:
        result.warnings.append(f"session {state.session} starts afresh (its context was cleared or compacted)")
        held = []
    elif state.scope is not None and state.scope != result.scope:
        result.warnings.append(
            f"session {state.session} switched from {state.scope} to {result.scope}: its earlier files no longer "
            "count; loading starts again from the index",
        )
        held = []
    state.scope = result.scope
    return held


def _run(repo: MemoryRepo, result: LoadResult, held: list[Held]) -> list[Held]:
    """Fill `result`; returns the files the session holds afterwards."""
    run = _Run(repo, result, held)
    if result.mode == "group":
        _load_group(run)
    elif result.mode == "main":
        _load_main(run)
    else:
        _load_dreaming(run)
    scope = Scope("group", result.group) if result.group else Scope("main")  # the load's own files only
    result.withheld = uncommitted(repo, scope.pathspecs(repo), run.redactor)
    run.redactor.save()
    run.counter.save()
    result.files = run.breaker.loaded
    result.skipped = run.breaker.skipped
    return run.discipline.held


def _group_of(repo: MemoryRepo, target: Target) -> str | None:
    if target.room is not None:
        group = resolve_room(repo, target.room)
        if target.group is not None and target.group != group:
            raise UsageError(f"--room {target.room} maps to group {group}, which contradicts --group {target.group}")
        return group
    return check_group_name(target.group) if target.group is not None else None


def _index(run: _Run, rel: str, create_hint: str) -> RoutingTable:
    """Load an entry index; its routing table (problems become warnings)."""
    text = run.repo.read(rel)
    if text is None:
        raise StateError(f"{run.repo.repo_path(rel)} does not exist: no memory here yet; {create_hint}")
    table = parse_routing(text)
    for problem in table.problems:
        run.result.warnings.append(f"{run.repo.repo_path(rel)}:{problem.line}: {problem.message}")
    run.breaker.offer(run.repo.repo_path(rel), text, "index")
    return table


def _route(choice: RouteChoice) -> LoadRoute:
    return LoadRoute(choice.file, choice.priority, list(choice.hits), choice.reason)


def _load_group(run: _Run) -> None:
    group = run.result.group
    assert group is not None
    folder = layout.group_dir(group)
    index_rel = layout.group_index(group)
    table = _index(run, index_rel, f"`apm-git flush --scope group:{group}` creates it")
    choice = rank_routes(table, run.result.intent)[0]
    run.result.routes.append(_route(choice))
    loaded = run.offer(
        f"{folder}/{choice.file}", "routed", choice.priority, disciplined=True,
        missing=f"missing: {run.repo.repo_path(index_rel)} routes to it, but it does not exist",
    )
    if loaded is not None:
        _conventions(run, group, choice.file, loaded.text)
    if run.result.intent and not choice.hits:
        run.result.recall = "no routing keyword matched the intent"
        recall(run, group, None, {item.path for item in run.breaker.loaded if not item.cut})


def _conventions(run: _Run, group: str, routed: str, text: str) -> None:
    """At most one `conventions/` file that the routed file names."""
    folder = layout.group_dir(group)
    refs = _conventions_refs(text, run.repo.memory_prefix, group)
    for extra in refs[1:]:
        run.breaker.skipped.append(SkippedFile(
            run.repo.repo_path(f"{folder}/{extra}"), CONVENTIONS, None,
            f"only one conventions/ file per load; {refs[0]} came first",
        ))
    if refs:
        run.offer(f"{folder}/{refs[0]}", CONVENTIONS, disciplined=True,
                  missing=f"missing: {routed} refers to it, but it does not exist")


def _conventions_refs(text: str, memory_dir: str, group: str) -> list[str]:
    """The `conventions/…` files of this group that `text` names, in order of first mention."""
    found: list[str] = []
    folder = layout.group_dir(group)
    for match in _CONVENTIONS_REF.finditer(text):
        ref = match[0].removeprefix("./")
        for prefix in (f"{memory_dir}/{folder}/", f"{folder}/"):
            ref = ref.removeprefix(prefix)
        parts = ref.split("/")
        safe = parts[0] == names.CONVENTIONS and len(parts) > 1 and all(part not in ("", ".", "..") for part in parts)
        if safe and ref not in found:
            found.append(ref)
    return found


def _load_main(run: _Run) -> None:
    table = _index(run, names.MAIN_INDEX, "`apm-git flush --scope main` creates it")
    wanted = run.repo.config.load.max_core_files
    chosen = 0
    for choice in rank_routes(table, run.result.intent):
        if chosen == wanted or run.breaker.tripped:
            break
        loaded = run.offer(
            f"{names.MAIN}/{choice.file}", "routed", choice.priority, disciplined=True,
            missing=f"missing: {run.repo.repo_path(names.MAIN_INDEX)} routes to it, but it does not exist",
        )
        if loaded is not None:
            run.result.routes.append(_route(choice))
            chosen += 1
    run.journals(clock.today())
    if run.result.intent and not any(route.hits for route in run.result.routes):
        run.result.recall = "no routing keyword matched the intent"
        recall(run, None, f"{names.MAIN}/", {item.path for item in run.breaker.loaded if not item.cut})
    run.result.last_flush = _last_flush(run)


def _last_flush(run: _Run) -> str:
    try:
        state = load_flush_state(run.repo)
    except ApmGitError as error:
        run.result.warnings.append(str(error))
        return "unknown"
    stamp = state["main_session"].get("last_flush_time")
    moment = clock.parse_stamp(stamp) if isinstance(stamp, str) else None
    return moment.strftime("%Y-%m-%d %H:%M") if moment else "never"


def _load_dreaming(run: _Run) -> None:
    intent = run.result.intent
    l1_limit = int(run.result.budget * L1_SHARE)
    index_text = None
    for rel, missing in _l1_files(run):
        text = run.read(rel, "L1" if rel == names.INDEX else "journal", missing=missing)
        if text is not None:
            run.breaker.offer_within(run.repo.repo_path(rel), text, "L1" if rel == names.INDEX else "journal",
                                     l1_limit)
            index_text = text if rel == names.INDEX else index_text
    if not intent:
        run.result.guide = GUIDE
        if index_text is not None:
            _hot_entries(run, index_md.hot_files(index_text))
        return
    choice = domains.domain_of(intent)
    whole: set[str] = {item.path for item in run.breaker.loaded if not item.cut}
    if choice is not None:
        run.result.domain = choice.domain.name
        run.result.domain_hits = list(choice.hits)
        routing = run.repo.config.routing
        why = f"the {choice.domain.name} domain (matched {', '.join(choice.hits)})"
        for name in dict.fromkeys(routing[kind] for kind in choice.domain.kinds if kind in routing):
            text = run.read(name, "L2", missing=f"missing: the {choice.domain.name} domain calls for it")
            if text is None:
                continue
            if is_empty_template(text):
                run.breaker.skipped.append(SkippedFile(run.repo.repo_path(name), "L2", None,
                                                       "an empty template: nothing written there yet"))
                continue
            loaded = run.breaker.offer_if_room(run.repo.repo_path(name), text, "L2", why)
            if loaded is not None:
                whole.add(loaded.path)
    run.result.recall = ("the intent names no domain" if choice is None else
                         "the index adds the best sections as the budget allows")
    recall(run, None, None, whole)


def _hot_entries(run: _Run, hot: list[str]) -> None:
    """Session start: the Hot Files' entries, most valuable first (the REM score), as the budget allows."""
    today = clock.today()
    ranked: list[tuple[int, str, Record]] = []
    for name in hot:
        try:
            text = run.repo.read(name) if safe_file(name) else None
        except ApmGitError as error:
            run.result.warnings.append(str(error))
            continue
        text = run.redactor.text(run.repo.repo_path(name), text) if text else text
        for record in parse(text or "").records:
            if record.ok and record.fitness is not None:
                ranked.append((record_score(record, today, run.repo.config.rem), name, record))
    ranked.sort(key=lambda item: (-item[0], item[2].date), reverse=False)
    for points, name, record in ranked[:HOT_ENTRIES]:
        why = f"Hot Files entry {record.id} (score {points})"
        run.breaker.offer_if_room(f"{run.repo.repo_path(name)}:{record.line_no}", record.text, "hot", why)


def _l1_files(run: _Run) -> list[tuple[str, str]]:
    today = clock.today()
    files = [(names.INDEX, "missing: run `apm-git index` to build it")]
    for day, label in ((today, "today"), (today - dt.timedelta(days=1), "yesterday")):
        files.append((dated.journal_name(day), f"no journal for {label} ({day.isoformat()})"))
    return files


def is_empty_template(text: str) -> bool:
    """A category file as `init` wrote it (its title and the lines that say what belongs there)."""
    stripped = text.strip()
    return any(stripped == templates.render(f"init/memory/{name}").strip()
               for name in templates.tree("init/memory") if name.endswith(".md"))


def recall(run: _Run, group: str | None, under: str | None, whole: set[str]) -> None:
    """L2 through the index: the sections of the scope that best match the intent (ranked by their best
    passage), in rank order, each whole or, when it does not fit, its best passage; skipping sections of files
    already loaded whole."""
    from apm_git.errors import NoFts5
    from apm_git.search.index import Index, SearchScope
    from apm_git.search.scan import matched, query_terms, scan_sections

    assert run.result.intent is not None
    try:
        wanted = query_terms(run.result.intent)
    except UsageError:
        return
    scope = SearchScope(group)
    wanted_hits = RECALL_SECTIONS * 3
    try:
        index = Index(run.repo, scope)
    except NoFts5 as error:
        run.result.warnings.append(f"{error}; this load scanned the files instead")
        hits = scan_sections(run.repo, scope, wanted, limit=wanted_hits, under=under)[0]
    else:
        try:
            hits = index.search(wanted, limit=wanted_hits, archive=False, under=under)[0]
        finally:
            index.close()
    taken = 0
    for hit in hits:
        path = run.repo.repo_path(hit.path)
        if path in whole or hit.path.startswith(f"{names.ARCHIVE}/") or run.redactor.suspects(path, hit.text):
            continue
        why = f"matched {', '.join(matched(hit, wanted, whole=True)) or 'the intent'} (score {hit.score:g})"
        why = f"entry {hit.entry_id}, {why}" if hit.entry_id else why
        if run.breaker.offer_if_room(f"{path}:{hit.line}-{hit.last}", hit.text + "\n", "L2 section", why):
            taken += 1
        elif hit.passage is not None and hit.passage != (hit.line, hit.last):  # too large: its best passage
            first, last = hit.passage
            place = f"{hit.trail} › {hit.heading}" if hit.trail else hit.heading
            dated = f" ({hit.date})" if hit.date and hit.date not in place else ""
            why = f"the best passage of {place}{dated}, matched {', '.join(matched(hit, wanted)) or 'the intent'}"
            if run.breaker.offer_if_room(f"{path}:{first}-{last}", hit.passage_text + "\n", "L2 section", why):
                taken += 1
        if taken == RECALL_SECTIONS or run.breaker.used >= run.breaker.budget:
            break
