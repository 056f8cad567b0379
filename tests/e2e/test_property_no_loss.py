"""The promise, as a property (issue 13): whatever an agent and a person do — journal writes, hits, hand
deletions of records, forgets, flushes, deep sleeps and REM runs while time moves — every entry that was
ever committed stays on record: live, archived, merged or superseded in HEAD after a final flush, or
forgotten with a commit that `history` shows.  Real repositories, real git, the real command line."""
from __future__ import annotations

import datetime as dt
import itertools
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apm_git.cli.app import cli
from apm_git.commands.init import init
from apm_git.dreaming.locate import header_id
from apm_git.model.entries import named_ids
from apm_git.model.records import Block, parse
from tests.conftest import git

START = dt.date(2026, 1, 5)
TITLES = ["Use Redis", "Pin the runner", "Deploy on Fridays", "Cache warmup", "Rotate keys", "Retry budget"]
KINDS = ["decision", "lesson", "context", "tool", "person"]
_FIELD = re.compile(r"- (Merged|Supersedes): (.*)")

Step = tuple[object, ...]
steps = st.lists(
    st.one_of(
        st.tuples(st.just("write"), st.sampled_from(TITLES), st.integers(0, 1), st.sampled_from(KINDS),
                  st.sampled_from(["HIGH", "MEDIUM", "LOW"])),
        st.tuples(st.just("hit"), st.integers(0, 99)),
        st.tuples(st.just("delete"), st.integers(0, 99)),
        st.tuples(st.just("forget"), st.integers(0, 99)),
        st.tuples(st.just("flush")),
        st.tuples(st.just("deep-sleep")),
        st.tuples(st.just("rem")),
        st.tuples(st.just("advance"), st.integers(1, 45)),
    ),
    min_size=4, max_size=16,
)
_runs = itertools.count()


class World:
    def __init__(self, root: Path) -> None:
        init(root, install=False)
        self.root = root
        self.today = START
        self.committed: set[str] = set()  # every id HEAD ever held
        self.forgotten: set[str] = set()

    def run(self, *args: str) -> int:
        env = {"APM_GIT_NOW": f"{self.today.isoformat()}T12:00:00+00:00", "APM_GIT_REPO": str(self.root)}
        result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
        assert result.exit_code in (0, 1, 3), (args, result.exit_code, result.stderr)
        assert "Traceback" not in result.stderr
        return result.exit_code

    def record_files(self) -> list[Path]:
        memory = self.root / "memory"
        return [path for path in sorted(memory.rglob("*.md")) if path.name != "INDEX.md" and "groups" not in path.parts
                and "main" not in path.parts]

    def live_ids(self) -> list[str]:
        ids = []
        for path in self.record_files():
            if "archive" not in path.parts:
                ids += [record.id for record in parse(path.read_text()).entries]
        return ids

    def head(self) -> tuple[set[str], set[str]]:
        """Entry ids at HEAD, and ids a Merged or Supersedes field names there."""
        grep = git(self.root, "grep", "-h", "-E", "^(## \\[|- Merged: |- Supersedes: )", "HEAD", "--", "memory",
                   check=False)
        entries, named = set(), set()
        for line in grep.splitlines():
            match = _FIELD.fullmatch(line)
            if match:
                named.update(named_ids(match[1], match[2]))
            elif (entry := header_id(line)) is not None:
                entries.add(entry)
        return entries, named

    def step(self, step: Step) -> None:
        action = step[0]
        if action == "write":
            _, title, body, kind, value = step
            self.run("journal", "add", f"{title}: variant {body}", "--kind", str(kind), "--title", str(title),
                     "--value", str(value))
        elif action == "hit":
            live = self.live_ids()
            if live:
                self.run("hit", live[int(step[1]) % len(live)])
        elif action == "delete":
            self.delete(int(step[1]))
        elif action == "forget":
            known = sorted(set(self.live_ids()) | self.head()[0])
            if known:
                entry = known[int(step[1]) % len(known)]
                if self.run("forget", entry, "--reason", "property test") == 0:
                    self.forgotten.add(entry)
        elif action == "flush":
            self.run("flush")
        elif action == "deep-sleep":
            self.run("deep-sleep")
        elif action == "rem":
            self.run("rem", "--force")
        else:
            self.today += dt.timedelta(days=int(step[1]))
        self.committed |= self.head()[0]

    def delete(self, pick: int) -> None:
        """A person deletes one record by hand, as an editor would."""
        places = [(path, index) for path in self.record_files()
                  for index, block in enumerate(parse(path.read_text()).blocks) if header_id(block.heading)]
        if not places:
            return
        path, index = places[pick % len(places)]
        parsed = parse(path.read_text())
        blocks: list[Block] = [block for number, block in enumerate(parsed.blocks) if number != index]
        path.write_text(parsed.bom + parsed.preamble.text + "".join(block.text for block in blocks))


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_every_entry_ever_committed_stays_on_record(tmp_path_factory: pytest.TempPathFactory, plan: list[Step]) -> None:
    world = World(tmp_path_factory.mktemp(f"prop{next(_runs)}") / "mem")
    for step in plan:
        world.step(step)
    world.run("flush")
    world.committed |= world.head()[0]
    entries, named = world.head()
    missing = world.committed - entries - named - world.forgotten
    assert not missing, (missing, plan)
    for entry in world.forgotten & world.committed - entries:
        result = CliRunner().invoke(cli, ["--repo", str(world.root), "history", entry], catch_exceptions=False)
        assert " forgotten " in result.stdout, (entry, result.stdout)
