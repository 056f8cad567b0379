"""A flush is a plan and its execution (issue 28): `plan_flush` computes what the commit holds and writes
nothing; `flush_locked` carries the plan out.  The outcomes below were recorded before the split."""
from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from apm_git.commands.flush import flush
from apm_git.operations.flush import FlushResult, _status
from apm_git.operations.flush_plan import plan_flush, scan
from apm_git.store.repo import MemoryRepo
from apm_git.store.scope import Scope
from tests.checks.helpers import record
from tests.conftest import git

DAY = "2026-04-06"
AWS_KEY = "AKIA" + "Q7XW2M4KZP3RT9BN"  # fake, of the real shape
DECISIONS = "# Decisions\n\n" + "".join(record("2026-01-15", title) for title in ("Old config", "Use Redis", "Pin it"))


@pytest.fixture(autouse=True)
def _pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock pinned before `repo` inits, so the outcomes do not move with the day."""
    monkeypatch.setenv("APM_GIT_NOW", f"{DAY}T10:00:00+00:00")


def _journal(repo: MemoryRepo, *records: str) -> None:
    (repo.memory / f"{DAY}.md").write_text(f"# Journal {DAY}\n\n" + "\n".join(records))


def _seeded(repo: MemoryRepo) -> None:
    (repo.memory / "decisions.md").write_text(DECISIONS)
    assert flush(repo).commit


def journal(repo: MemoryRepo) -> Scope:
    _journal(repo, record(DAY, "Pin the runner", tags="lesson"), record(DAY, "Cache wheels", tags="lesson"))
    return Scope("all")


def secret_section(repo: MemoryRepo) -> Scope:
    _journal(repo, record(DAY, "Pin the runner", tags="lesson"),
             record(DAY, "Rotated the key", tags="tool", body=f"the new key is {AWS_KEY}"))
    return Scope("all")


def secret_file(repo: MemoryRepo) -> Scope:
    (repo.memory / "notes").mkdir()
    (repo.memory / "notes" / "key.md").write_text(f"# Key\n\nkey {AWS_KEY}\n")
    journal(repo)
    return Scope("all")


def only_secret(repo: MemoryRepo) -> Scope:
    (repo.memory / "notes").mkdir()
    (repo.memory / "notes" / "key.md").write_text(f"# Key\n\nkey {AWS_KEY}\n")
    return Scope("all")


def loss(repo: MemoryRepo) -> Scope:
    _seeded(repo)
    (repo.memory / "decisions.md").write_text(DECISIONS.replace(record("2026-01-15", "Use Redis"), ""))
    journal(repo)
    return Scope("all")


def gone_file(repo: MemoryRepo) -> Scope:
    _seeded(repo)
    (repo.memory / "decisions.md").unlink()
    return Scope("all")


def gone_note(repo: MemoryRepo) -> Scope:
    (repo.memory / "notes").mkdir()
    (repo.memory / "notes" / "setup.md").write_text("# Setup\n\nThe runner needs two cores.\n")
    assert flush(repo).commit
    (repo.memory / "notes" / "setup.md").unlink()
    journal(repo)
    return Scope("all")


def unreadable(repo: MemoryRepo) -> Scope:
    _seeded(repo)
    (repo.memory / "decisions.md").write_bytes(DECISIONS.encode() + b"\xff\xfe\n")
    journal(repo)
    return Scope("all")


def main_scope(repo: MemoryRepo) -> Scope:
    journal(repo)
    return Scope("main")


SCENARIOS: dict[str, Callable[[MemoryRepo], Scope]] = {
    scenario.__name__: scenario
    for scenario in (journal, secret_section, secret_file, only_secret, loss, gone_file, gone_note, unreadable,
                     main_scope)
}


def _digest(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()[:12]


def outcome(repo: MemoryRepo, result: FlushResult) -> dict[str, object]:
    """What a flush did: its result (but the commit id and the fields left empty), the committed text of each
    file it names, and the work tree's INDEX.md and flush-state.json."""
    fields = {key: value for key, value in dataclasses.asdict(result).items() if key != "commit" and value}
    committed = {path: _digest(git(repo.root, "show", f"HEAD:{path}")) for path in result.files}
    tree = {name: _digest((repo.memory / name).read_bytes()) for name in ("INDEX.md", "flush-state.json")
            if (repo.memory / name).is_file()}
    return json.loads(json.dumps({"result": fields, "committed": committed, "work tree": tree,
                                  "commit": bool(result.commit)}, default=list))


GOLDEN: dict[str, object] = {'gone_file': {'commit': False,
               'committed': {},
               'result': {'lost': {'2026-01-15-old-config': 'memory/decisions.md',
                                   '2026-01-15-pin-it': 'memory/decisions.md',
                                   '2026-01-15-use-redis': 'memory/decisions.md'},
                          'notes': ['3 entries are gone from the work tree with no record of where they went, so the '
                                    'commit keeps them as HEAD has them: 2026-01-15-old-config (memory/decisions.md), '
                                    '2026-01-15-pin-it (memory/decisions.md), 2026-01-15-use-redis '
                                    '(memory/decisions.md); restore them (`git show HEAD:FILE`), or delete '
                                    'deliberately with `apm-git forget 2026-01-15-old-config 2026-01-15-pin-it '
                                    '2026-01-15-use-redis --reason TEXT`'],
                          'scope': 'all',
                          'skipped': 'nothing to flush: every change is held back (see above)',
                          'trigger': 'manual'},
               'work tree': {'INDEX.md': '5097bff148e3', 'flush-state.json': '1bf9979afa78'}},
 'gone_note': {'commit': True,
               'committed': {'memory/2026-04-06.md': '4c599b365889',
                             'memory/INDEX.md': '555383ed3376',
                             'memory/flush-state.json': '5b4fc5165f18'},
               'result': {'files': ['memory/2026-04-06.md', 'memory/INDEX.md', 'memory/flush-state.json'],
                          'kept_files': ['memory/notes/setup.md'],
                          'notes': ['1 memory file is gone from the work tree (deleted or emptied, and not staged), so '
                                    'the commit keeps it as HEAD has it: memory/notes/setup.md; restore it (`git '
                                    'checkout HEAD -- PATH`), or delete deliberately: `git rm PATH` (`git add PATH` to '
                                    'commit an emptied file), then flush'],
                          'scope': 'all',
                          'trigger': 'manual'},
               'work tree': {'INDEX.md': 'c178b8d04993', 'flush-state.json': '5b4fc5165f18'}},
 'journal': {'commit': True,
             'committed': {'memory/2026-04-06.md': '4c599b365889',
                           'memory/INDEX.md': 'c178b8d04993',
                           'memory/flush-state.json': '1bf9979afa78'},
             'result': {'files': ['memory/2026-04-06.md', 'memory/INDEX.md', 'memory/flush-state.json'],
                        'scope': 'all',
                        'trigger': 'manual'},
             'work tree': {'INDEX.md': 'c178b8d04993', 'flush-state.json': '1bf9979afa78'}},
 'loss': {'commit': True,
          'committed': {'memory/2026-04-06.md': '4c599b365889',
                        'memory/INDEX.md': '24b991dc9c7c',
                        'memory/flush-state.json': '2926bda2cb49'},
          'result': {'files': ['memory/2026-04-06.md', 'memory/INDEX.md', 'memory/flush-state.json'],
                     'lost': {'2026-01-15-use-redis': 'memory/decisions.md'},
                     'notes': ['1 entry is gone from the work tree with no record of where it went, so the commit '
                               'keeps it as HEAD has it: 2026-01-15-use-redis (memory/decisions.md); restore it (`git '
                               'show HEAD:FILE`), or delete deliberately with `apm-git forget 2026-01-15-use-redis '
                               '--reason TEXT`'],
                     'scope': 'all',
                     'trigger': 'manual'},
          'work tree': {'INDEX.md': '24b991dc9c7c', 'flush-state.json': '2926bda2cb49'}},
 'main_scope': {'commit': True,
                'committed': {'memory/2026-04-06.md': '4c599b365889',
                              'memory/INDEX.md': 'c178b8d04993',
                              'memory/flush-state.json': '1bf9979afa78'},
                'result': {'files': ['memory/2026-04-06.md', 'memory/INDEX.md', 'memory/flush-state.json'],
                           'scope': 'main',
                           'trigger': 'manual'},
                'work tree': {'INDEX.md': 'c178b8d04993', 'flush-state.json': '1bf9979afa78'}},
 'only_secret': {'commit': False,
                 'committed': {},
                 'result': {'findings': ['memory/notes/key.md:3: apm-no-secrets: looks like a credential (AWS Access '
                                         'Key); remove it from memory and note where the secret lives instead, or end '
                                         "the line with 'pragma: allowlist secret' if it is not one"],
                            'scope': 'all',
                            'skipped': 'nothing to flush: the only changes are withheld (suspected secrets, files too '
                                       'large)',
                            'trigger': 'manual',
                            'withheld': ['memory/notes/key.md'],
                            'withheld_sections': [['memory/notes/key.md', 3, '', ['AWS Access Key'], True]]},
                 'work tree': {'INDEX.md': '631a086180a8', 'flush-state.json': '54a40d131015'}},
 'secret_file': {'commit': True,
                 'committed': {'memory/2026-04-06.md': '4c599b365889',
                               'memory/INDEX.md': 'c178b8d04993',
                               'memory/flush-state.json': 'b005f8516274'},
                 'result': {'files': ['memory/2026-04-06.md', 'memory/INDEX.md', 'memory/flush-state.json'],
                            'findings': ['memory/notes/key.md:3: apm-no-secrets: looks like a credential (AWS Access '
                                         'Key); remove it from memory and note where the secret lives instead, or end '
                                         "the line with 'pragma: allowlist secret' if it is not one"],
                            'scope': 'all',
                            'trigger': 'manual',
                            'withheld': ['memory/notes/key.md'],
                            'withheld_sections': [['memory/notes/key.md', 3, '', ['AWS Access Key'], True]]},
                 'work tree': {'INDEX.md': 'c178b8d04993', 'flush-state.json': 'b005f8516274'}},
 'secret_section': {'commit': True,
                    'committed': {'memory/2026-04-06.md': 'bb3eaea4ea9a',
                                  'memory/INDEX.md': '52531caf1288',
                                  'memory/flush-state.json': '812c82270d4d'},
                    'result': {'files': ['memory/2026-04-06.md', 'memory/INDEX.md', 'memory/flush-state.json'],
                               'findings': ['memory/2026-04-06.md:12: apm-no-secrets: looks like a credential (AWS '
                                            'Access Key); remove it from memory and note where the secret lives '
                                            "instead, or end the line with 'pragma: allowlist secret' if it is not "
                                            'one'],
                               'scope': 'all',
                               'trigger': 'manual',
                               'withheld': ['memory/2026-04-06.md'],
                               'withheld_sections': [['memory/2026-04-06.md',
                                                      12,
                                                      '[2026-04-06] Rotated the key',
                                                      ['AWS Access Key'],
                                                      False]]},
                    'work tree': {'INDEX.md': '52531caf1288', 'flush-state.json': '812c82270d4d'}},
 'unreadable': {'commit': True,
                'committed': {'memory/2026-04-06.md': '4c599b365889',
                              'memory/INDEX.md': 'aaf1a276227b',
                              'memory/flush-state.json': 'b537c1d8a65d'},
                'result': {'files': ['memory/2026-04-06.md', 'memory/INDEX.md', 'memory/flush-state.json'],
                           'notes': ['memory/decisions.md:18: cannot be read: not valid UTF-8 (byte 422); re-save the '
                                     'file as UTF-8 — apm-git leaves it untouched; the commit keeps its HEAD version, '
                                     'so none of its entries is lost'],
                           'scope': 'all',
                           'trigger': 'manual',
                           'unreadable': ['memory/decisions.md']},
                'work tree': {'INDEX.md': '5097bff148e3', 'flush-state.json': 'b537c1d8a65d'}}}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_flush_does_what_it_did_before_the_split(repo: MemoryRepo, name: str) -> None:
    scope = SCENARIOS[name](repo)
    got = outcome(repo, flush(repo, scope=scope))
    if os.environ.get("RECORD_GOLDEN"):
        Path(os.environ["RECORD_GOLDEN"], f"{name}.json").write_text(json.dumps(got, indent=1, sort_keys=True))
    assert got == GOLDEN[name]


def _every_file(root: Path) -> dict[str, bytes]:
    """Every file under the repository, `.git` too (its index, objects and `.git/apm-git` caches)."""
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_plan_writes_nothing_and_the_flush_carries_it_out(repo: MemoryRepo, name: str) -> None:
    scope = SCENARIOS[name](repo)
    head, changed = _status(repo, scope.pathspecs(repo))  # a status may refresh git's index
    snap = scan(repo, head, scope.pathspecs(repo), changed)  # and the scan save the entries of the blobs it read
    before = _every_file(repo.root)
    plan = plan_flush(repo, scope, dt.date.fromisoformat(DAY), snap)
    assert _every_file(repo.root) == before, "the plan wrote nothing, nowhere"
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.index = None  # type: ignore[misc]
    result = flush(repo, scope=scope)
    assert outcome(repo, result) == GOLDEN[name]
    assert (list(plan.findings), list(plan.notes), list(plan.withheld), dict(plan.lost), list(plan.kept_files)) == (
        result.findings, result.notes, result.withheld, result.lost, result.kept_files)
    if plan.index is not None and result.commit:  # a flush that commits nothing leaves INDEX.md as it was
        assert (repo.memory / "INDEX.md").read_text() == plan.index
