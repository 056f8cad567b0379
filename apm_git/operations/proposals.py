"""Consolidation as a proposal: a run committed on a branch of its own, reviewed, then accepted or rejected.

- `propose`: the stage runs as `consolidation.run` runs it (the lock, the plan, the guard, the user's
  memory flushed first), but its commit — the same files, trailers and INDEX.md a run would commit —
  goes to `refs/heads/apm-git/proposals/<stage>-<date>`, on top of HEAD; the user's branch, index
  and work tree stay as they were.  One proposal per stage is open at a time: proposing again
  re-plans, keeps the open one when it holds the same items, and replaces it when the memory changed.
- `accept NAME [--only ID…] [--drop ID…]`: the stage plans again on the current memory, and only
  the chosen items are carried out, as one commit on the user's branch through `consolidation.run`.
  An item the new plan no longer holds (a later flush changed the entry) refuses the whole accept in
  one line: a proposal is never applied blindly.  Before anything is committed, the result goes
  through the checks `lint` runs (operations/recheck.py): no loss, budgets, record format.
- `reject NAME`: the branch goes; the stage counts as run in this clone, so `dream` does not propose
  the same again before it is due.
Design: docs/proposals.md.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection, Sequence
from typing import Any, ClassVar

from apm_git import clock, git
from apm_git.dreaming.execute import Changes
from apm_git.dreaming.plan_deep_sleep import plan_deep_sleep
from apm_git.dreaming.select import select
from apm_git.errors import FindingsError, PlanRefused, UsageError
from apm_git.model import trailers as trailer_model
from apm_git.model.entry_id import is_entry_id
from apm_git.model.records import parse
from apm_git.model.vocabulary import StageName
from apm_git.operations.apply import run_contents
from apm_git.operations.consolidation import Planned, Stage, StageResult, counted, read_memory, run
from apm_git.operations.recheck import refuse_findings
from apm_git.operations.stages import DeepSleep, Rem
from apm_git.present.shapes_plans import plan_json
from apm_git.store.clone import clone_trailer
from apm_git.store.commit import note_identity
from apm_git.store.repo import MemoryRepo
from apm_git.store.state import record_quiet_run
from apm_git.store.writer import write_lock

BRANCHES = "apm-git/proposals/"
REFS = f"refs/heads/{BRANCHES}"
PROPOSAL = "Apm-Proposal"
# The trailers that name one item each, and the verb the page shows for it.
ITEM_VERBS = {"Apm-Promote": "promote", "Apm-Archive": "archive", "Apm-Proven": "proven", "Apm-Move": "move",
              "Apm-Supersede": "supersede"}


@dataclasses.dataclass(frozen=True)
class ProposalItem:
    key: str  # the entry id, or the journal's repo path for a journal move
    verb: str
    detail: str  # the trailer's text
    linked: tuple[str, ...] = ()  # entries that go with it (a fold's survivor, a supersession's newer entry)


@dataclasses.dataclass(frozen=True)
class Proposal:
    name: str  # the branch is apm-git/proposals/<name>
    commit: str
    base: str  # the commit it was made on
    stage: StageName
    date: str
    subject: str
    items: list[ProposalItem]
    behind: int  # commits on the user's branch since it was made (0: made on HEAD)

    @property
    def branch(self) -> str:
        return BRANCHES + self.name

    @property
    def state(self) -> str:
        return "open" if not self.behind else f"open, {self.behind} commit(s) behind: accept plans it again"


@dataclasses.dataclass
class Proposed:
    result: StageResult
    name: str | None = None
    commit: str | None = None
    kept: bool = False  # the open proposal already held these items: left as it was
    replaced: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Accepted:
    name: str
    result: StageResult
    taken: list[str]
    dropped: list[str]

    @property
    def summary(self) -> str:
        commit = self.result.commit[:12] if self.result.commit else "no commit"
        return (f"accepted {len(self.taken)} item(s) of {self.name} as {commit}"
                + (f", dropped {len(self.dropped)}" if self.dropped else ""))


# --- reading proposals ---------------------------------------------------------------------------

def items_of(trailers: Sequence[tuple[str, str]]) -> list[ProposalItem]:
    """The items a consolidation's trailers name, in order, one per entry (or journal)."""
    found: dict[str, ProposalItem] = {}
    for key, value in trailers:
        verb = ITEM_VERBS.get(key)
        words = value.split()
        if verb is None or not words:
            continue
        linked: tuple[str, ...] = ()
        if key == "Apm-Supersede" and len(words) >= 3:
            linked = (words[2],)
        elif key == "Apm-Move" and value.endswith(")") and "(merged into " in value:
            linked = (value.rsplit("(merged into ", 1)[1].rstrip(")").strip(),)
        item_key = words[0]
        if item_key in found:
            old = found[item_key]
            found[item_key] = ProposalItem(item_key, f"{old.verb}, {verb}", f"{old.detail}; {value}",
                                           old.linked + linked)
        else:
            found[item_key] = ProposalItem(item_key, verb, value, linked)
    return list(found.values())


def open_proposals(repo: MemoryRepo) -> list[Proposal]:
    head = git.head(repo.root)
    found = []
    for ref in git.refs_under(repo.root, REFS):
        proposal = _read(repo, ref.removeprefix(REFS), head)
        if proposal is not None:
            found.append(proposal)
    return found


def by_name(repo: MemoryRepo, name: str) -> Proposal | None:
    """The open proposal `name` (as listed, or as its branch `apm-git/proposals/NAME`); only names the
    refs hold are looked up, so nothing a person types reaches git unchecked."""
    name = name.removeprefix(BRANCHES)
    listed = set(git.refs_under(repo.root, REFS))
    if REFS + name not in listed:
        return None
    return _read(repo, name, git.head(repo.root))


def _read(repo: MemoryRepo, name: str, head: str | None) -> Proposal | None:
    commits = git.log(repo.root, [REFS + name], max_count=1)
    if not commits or len(commits[0].parents) != 1:
        return None
    found = commits[0]
    trailers = trailer_model.parse(found.message)
    stage = dict(trailers).get("Apm-Trigger")
    if stage not in (DeepSleep.name, Rem.name):
        return None
    base = found.parents[0]
    behind = 0 if head is None or head == base else len(git.rev_list(repo.root, f"{base}..{head}"))
    return Proposal(name, found.sha, base, stage, found.date, found.subject.removeprefix(trailer_model.SUBJECT_PREFIX),
                    items_of(trailers), behind)


def item_blocks(repo: MemoryRepo, proposal: Proposal, limit: int | None = None,
                ) -> dict[str, tuple[str | None, str | None]]:
    """Each entry item's record before (at the proposal's base) and after (in the proposal), for review (the
    first `limit` items)."""
    from apm_git.dreaming.locate import entry_block, header_id
    from apm_git.model import dated

    paths: dict[str, list[str]] = {}
    for item in proposal.items[:limit]:
        paths[item.key] = [word for word in item.detail.replace("(", " ").split() if word.startswith(
            repo.memory_prefix + "/")]
    specs = sorted({f"{rev}:{path}" for files in paths.values() for path in files
                    for rev in (proposal.base, proposal.commit)})
    blobs = git.cat_files(repo.root, specs)
    records: dict[str, dict[str, str]] = {}  # spec -> id -> record text, each file read once
    wanted = {item.key for item in proposal.items[:limit]}

    def block(spec: str, entry: str) -> str | None:
        if spec not in records:
            data = blobs.get(spec)
            records[spec] = _records_of("" if data is None else data.decode("utf-8", "replace"), wanted, header_id)
        found = records[spec].get(entry)
        path = spec.split(":", 1)[1]
        day = dated.journal_date(path.rsplit("/", 1)[-1])
        if found is None and day is not None and blobs.get(spec) is not None:  # a session-note item of a journal
            found = entry_block(blobs[spec].decode("utf-8", "replace"), entry, day)  # type: ignore[union-attr]
        return found

    shown: dict[str, tuple[str | None, str | None]] = {}
    for item in proposal.items[:limit]:
        if not is_entry_id(item.key):
            continue
        sides = [next((found for path in paths[item.key] if (found := block(f"{rev}:{path}", item.key))), None)
                 for rev in (proposal.base, proposal.commit)]
        shown[item.key] = (sides[0], sides[1])
    return shown


def _records_of(text: str, wanted: set[str], header_id: Any) -> dict[str, str]:
    """The `wanted` entries' record texts in `text`, by id: one pass over its lines (a record runs to the next
    `## ` line), ids computed only for headings of a wanted date.  A code fence is the full parser's case."""
    if "```" in text or "~~~" in text:
        return {record.id: record.text.rstrip() for record in parse(text).records
                if record.date and record.title and record.id in wanted}
    days = {entry[:10] for entry in wanted}
    found: dict[str, str] = {}
    lines = text.split("\n")
    start, entry = -1, None
    for at, line in enumerate([*lines, "## end"]):
        if line.startswith("## "):
            if entry is not None:
                found[entry] = "\n".join(lines[start:at]).rstrip()
            entry = header_id(line) if line.startswith("## [") and line[4:14] in days else None
            entry = entry if entry in wanted else None
            start = at
    return found


# --- proposing -----------------------------------------------------------------------------------

def propose(repo: MemoryRepo, stage: Stage, *, force: bool = False) -> Proposed:
    """Run `stage`, committing it as a proposal (see the module's docstring)."""
    proposed: Proposed | None = None

    def commit_proposal(result: StageResult, changes: Changes, body: str, day: dt.date) -> None:
        nonlocal proposed
        proposed = _commit_proposal(repo, result, changes, body, day)

    result = run(repo, stage, force=force, propose=commit_proposal)
    return proposed or Proposed(result)


def _commit_proposal(repo: MemoryRepo, result: StageResult, changes: Changes, body: str, day: dt.date) -> Proposed:
    contents = run_contents(repo, changes, result.stage, day)
    state_files = {repo.repo_path(name) for name in ("flush-state.json", "INDEX.md")}
    made = Proposed(result)
    if set(contents) <= state_files:
        record_quiet_run(repo, result.stage)  # nothing to propose: as a run with nothing to do (docs/commits.md)
        return made
    name = f"{result.stage}-{day.isoformat()}"
    items = items_of(result.trailers)
    same_stage = [p for p in open_proposals(repo) if p.stage == result.stage]
    for open_one in same_stage:
        if [(i.key, i.verb) for i in open_one.items] == [(i.key, i.verb) for i in items]:
            made.name, made.commit, made.kept = open_one.name, open_one.commit, True
            return made
    trailers = [*result.trailers, ("Apm-Trigger", result.stage), ("Apm-Scope", "all"), (PROPOSAL, name),
                clone_trailer(repo.git_dir)]
    text = trailer_model.message(result.subject, trailers, body)
    head = git.head(repo.root)
    built = git.build_commit(repo.root, repo.git_dir, head, list(contents), text, contents=contents,
                             env=clock.git_date_env())
    note_identity(repo, built)
    existing = {p.name: p.commit for p in same_stage}
    git.update_ref(repo.root, REFS + name, built.commit, existing.get(name), f"apm-git: propose {result.stage}")
    for open_one in same_stage:
        if open_one.name != name:
            git.delete_ref(repo.root, REFS + open_one.name)
            made.replaced.append(open_one.name)
    made.name, made.commit = name, built.commit
    return made


# --- accepting and rejecting -----------------------------------------------------------------------

def chosen_keys(proposal: Proposal, only: Collection[str], drop: Collection[str]) -> list[str]:
    """The items to carry out; an id the proposal does not hold is a usage error, and so is half of a pair
    that goes together (a fold, a supersession)."""
    keys = [item.key for item in proposal.items]
    unknown = [key for key in [*only, *drop] if key not in keys]
    if unknown:
        raise UsageError(f"{', '.join(unknown)}: not an item of {proposal.name}; its items: "
                         f"{', '.join(keys[:8])}{' …' if len(keys) > 8 else ''}")
    taken = [key for key in keys if (not only or key in only) and key not in drop]
    if not taken:
        raise UsageError(f"nothing left to accept of {proposal.name}; `apm-git reject {proposal.name}` drops it")
    by_entry = {item.key: item for item in proposal.items}
    for item in proposal.items:
        partners = [other for other in item.linked if other in by_entry]
        for other in partners:
            if (item.key in taken) != (other in taken):
                raise UsageError(f"{item.key} and {other} go together ({item.verb}): accept or drop both")
    return taken


def accept(repo: MemoryRepo, name: str, *, only: Collection[str] = (), drop: Collection[str] = ()) -> Accepted:
    proposal = by_name(repo, name)
    if proposal is None:
        raise FindingsError(f"no open proposal {name}; `apm-git proposals` lists them")
    taken = chosen_keys(proposal, only, drop)
    chosen = Chosen(proposal, frozenset(taken))
    result = run(repo, chosen, force=True)  # each item was reviewed: the mass-archive guard has had its say
    git.delete_ref(repo.root, REFS + proposal.name)
    return Accepted(proposal.name, result, taken, [item.key for item in proposal.items if item.key not in taken])


def reject(repo: MemoryRepo, name: str) -> Proposal:
    with write_lock(repo):
        proposal = by_name(repo, name)
        if proposal is None:
            raise FindingsError(f"no open proposal {name}; `apm-git proposals` lists them")
        git.delete_ref(repo.root, REFS + proposal.name)
        record_quiet_run(repo, proposal.stage)  # `dream` waits until the stage is due again
    return proposal


@dataclasses.dataclass
class Chosen:
    """The proposal's stage planned again on the current memory, carried out for the chosen items only."""

    proposal: Proposal
    keys: frozenset[str]
    leaves_out: ClassVar[bool] = True

    @property
    def name(self) -> StageName:
        return self.proposal.stage

    def plan(self, repo: MemoryRepo, today: dt.date, left: Collection[str]) -> Planned:
        if self.proposal.stage == DeepSleep.name:
            fresh = plan_json(plan_deep_sleep(read_memory(repo, left), today, repo.config), repo.memory_prefix)
            self._check_stale(repo, items_of(_plan_trailers(fresh)))
            planned = DeepSleep(self._only_chosen(fresh)).plan(repo, today, left)
        else:
            planned = Rem().plan(repo, today, left)
            self._check_stale(repo, items_of(planned.result.trailers))
            planned = self._rem_part(repo, planned)
        self._recheck(repo, planned)
        result = planned.result
        dropped = [item.key for item in self.proposal.items if item.key not in self.keys]
        result.trailers.append((PROPOSAL, f"{self.proposal.name} (accepted {len(self.keys)} of "
                                          f"{len(self.proposal.items)} items)"))
        planned.body += f"\n\nAccepted from proposal {self.proposal.name}" + (
            f"; dropped: {', '.join(dropped)}." if dropped else ".")
        return planned

    def _check_stale(self, repo: MemoryRepo, replanned: list[ProposalItem]) -> None:
        now = {item.key: item.verb for item in replanned}
        proposed = {item.key: item.verb for item in self.proposal.items}
        stale = [key for key in sorted(self.keys) if now.get(key) != proposed[key]]
        if stale:
            more = f" (and {len(stale) - 1} more)" if len(stale) > 1 else ""
            raise PlanRefused(
                f"proposal {self.proposal.name} is stale: {self.proposal.stage} on the current memory no longer "
                f"proposes to {proposed[stale[0]]} {stale[0]}{more}; nothing was changed — propose again "
                f"(`apm-git {self.proposal.stage} --propose`), or leave it out (--drop {stale[0]})",
            )

    def _only_chosen(self, fresh: dict[str, Any]) -> dict[str, Any]:
        at = dict(fresh)
        at["promote"] = [p for p in fresh["promote"] if p["id"] in self.keys]
        at["archive"] = [a for a in fresh["archive"] if a["id"] in self.keys]
        at["journals"] = [m for m in fresh["journals"] if m["from"] in self.keys]
        return at

    def _rem_part(self, repo: MemoryRepo, planned: Planned) -> Planned:
        items = items_of(planned.result.trailers)
        entries = {key for item in items if item.key in self.keys for key in (item.key, *item.linked)}
        whole = planned.execute
        prefix = repo.memory_prefix + "/"

        def execute() -> Changes | None:
            changes = whole()
            if changes is None:
                return None
            writes = select(changes.read, changes.writes, entries)
            moves = [(source, target) for source, target in changes.moves if prefix + source in self.keys]
            if not writes and not moves:
                return None
            read = {**{name: changes.read[name] for name in writes if name in changes.read},
                    **{source: changes.read[source] for source, _ in moves if source in changes.read}}
            return Changes(writes, moves, read)

        planned.execute = execute
        result = planned.result
        result.trailers = [(key, value) for key, value in result.trailers
                           if not (key in ITEM_VERBS and value.split()[:1] and value.split()[0] not in self.keys)]
        planned.archived = sum(1 for key, _ in result.trailers if key == "Apm-Archive")
        counts = [(label, sum(1 for key, value in result.trailers if key == trailer and (
            trailer != "Apm-Move" or ("(merged into" in value) == (label == "merged"))))
            for trailer, label in (("Apm-Archive", "archived"), ("Apm-Proven", "proven"),
                                   ("Apm-Supersede", "superseded"), ("Apm-Move", "merged"),
                                   ("Apm-Move", "journals moved"))]
        result.subject = f"{result.stage} {counted(counts, 'nothing to change')}"
        return planned

    def _recheck(self, repo: MemoryRepo, planned: Planned) -> None:
        """Wrap the plan's execution: its commit is built apart and checked as `lint` would, before `run` lands it."""
        inner = planned.execute
        stage = self.proposal.stage

        def execute() -> Changes | None:
            changes = inner()
            if changes is None:
                return None
            contents = run_contents(repo, changes, stage, planned.day)
            head = git.head(repo.root)
            assert head is not None
            built = git.build_commit(repo.root, repo.git_dir, head, list(contents), "apm-git: accept (checked)\n",
                                     contents=contents, env=clock.git_date_env())
            refuse_findings(repo, head, built.commit, f"accept {self.proposal.name}")
            return changes

        planned.execute = execute


def _plan_trailers(plan: dict[str, Any]) -> list[tuple[str, str]]:
    """The item trailers a deep-sleep plan's JSON stands for (the keys `items_of` reads)."""
    return ([("Apm-Promote", str(p["id"])) for p in plan["promote"]]
            + [("Apm-Archive", str(a["id"])) for a in plan["archive"]]
            + [("Apm-Move", str(m["from"])) for m in plan["journals"]])
