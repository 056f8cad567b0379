"""Issue 12: the entry-level merge of the large repository (20,000 entries), in-process and through git.

Two branches of a copy of the large repository: `ours` hits 200 live entries; `theirs` hits 200
others, adds a journal of 100 new records and edits the body of 20 entries.  Figures:
- `merge_memory` of the whole memory (every file of the memory dir on three sides), in-process, as
  `sync` calls it; the text is read from git once, before timing;
- `git merge` of the two branches through the registered `apm-memory` driver, against the same merge
  with the memory routed to git's own text merge (`merge=text` in `.git/info/attributes`).
Each round starts from `ours` again (`git reset --hard`), which is not timed.
"""
from __future__ import annotations

import datetime as dt
import sys
import time
from collections.abc import Callable
from pathlib import Path

from harness import APM, Context, Row, alternate, median_of, run

SECTION = "merge"
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from apm_git import git  # noqa: E402
from apm_git.merge.conserve import lost_entries  # noqa: E402
from apm_git.merge.tree import merge_memory  # noqa: E402
from apm_git.model.records import parse, set_field  # noqa: E402


def _git(root: Path, *args: str) -> str:
    return run(("git", *args), root).stdout.decode()


def _tree(root: Path, rev: str) -> dict[str, str]:
    blobs = git.tree_blobs(root, rev, ["memory"])
    datas = git.cat_files(root, blobs.values())
    return {name: (datas[blob] or b"").decode("utf-8") for name, blob in blobs.items()}


def _hit(text: str, count: int, skip: int) -> str:
    entries = parse(text).entries[skip:skip + count]
    for record in entries:
        fitness = record.fitness
        if fitness is not None:
            bumped = fitness.render().replace(f"hit_count={fitness.hit_count}", f"hit_count={fitness.hit_count + 1}")
            text = text.replace(record.text, set_field(record, "Fitness", bumped).text, 1)
    return text


def _branches(root: Path) -> tuple[str, str]:
    """Commit `ours` and `theirs` on top of HEAD; returns their ids."""
    memory = root / "memory"
    categories = [path for path in sorted(memory.glob("*.md")) if not path.stem[:1].isdigit() and path.stem != "INDEX"]
    _git(root, "checkout", "-q", "-b", "theirs")
    for path in categories:
        text = path.read_text(encoding="utf-8")
        text = _hit(text, 40, 40)
        for record in parse(text).entries[100:104]:
            text = text.replace(record.text, set_field(record, "Body", record.body + " (edited on theirs)").text, 1)
        path.write_text(text, encoding="utf-8")
    day = dt.date(2031, 1, 1)
    (memory / f"{day.isoformat()}.md").write_text(f"# {day.isoformat()}\n\n" + "".join(
        f"## [{day.isoformat()}] Bench merge item {i}\n- Tags: context\n"
        f"- Fitness: last_referenced={day.isoformat()}, hit_count=0, decision_value=LOW\n- Body: new {i}.\n\n"
        for i in range(100)), encoding="utf-8")
    _git(root, "add", "-A", "memory")
    _git(root, "commit", "-q", "--no-verify", "-m", "bench: theirs")
    theirs = _git(root, "rev-parse", "HEAD").strip()
    _git(root, "checkout", "-q", "-")
    _git(root, "checkout", "-q", "-b", "ours")
    for path in categories:
        path.write_text(_hit(path.read_text(encoding="utf-8"), 40, 0), encoding="utf-8")
    _git(root, "commit", "-q", "--no-verify", "-am", "bench: ours")
    return _git(root, "rev-parse", "HEAD").strip(), theirs


def _git_merge(root: Path, ours: str, theirs: str) -> Callable[[int], float]:
    def step(_: int) -> float:
        _git(root, "reset", "-q", "--hard", ours)
        (root / ".git" / "apm-git" / "merge-driver.cache").unlink(missing_ok=True)  # each merge a first one
        started = time.perf_counter()
        run(("git", "merge", "-q", "--no-edit", "--no-verify", theirs), root)
        return time.perf_counter() - started
    return step


def run_section(ctx: Context) -> list[Row]:
    root = ctx.fresh_copy("large", "merge")
    _git(root, "config", "merge.apm-memory.driver", f"{APM[0]} merge-driver %O %A %B %P")
    ours, theirs = _branches(root)
    base = _git(root, "merge-base", ours, theirs).strip()
    sides = [_tree(root, rev) for rev in (base, ours, theirs)]
    entries = sum(len(parse(text).records) for name, text in sides[1].items() if name.endswith(".md"))

    def in_process(_: int) -> float:
        started = time.perf_counter()
        merge_memory(*sides)
        return time.perf_counter() - started

    (merged_times,) = alternate(ctx.repeat, in_process)
    result = merge_memory(*sides)
    lost = lost_entries(sides[0], sides[1], sides[2], result.files)
    rows = [Row(SECTION, f"merge_memory, {entries:,} entries, 3 sides", median_of(merged_times), None, "", None,
                f"(in-process; {len(lost)} lost, clean={result.clean})")]
    attributes = root / ".git" / "info" / "attributes"
    attributes.parent.mkdir(exist_ok=True)
    attributes.write_text("memory/** merge=apm-memory\n", encoding="utf-8")  # as init's .gitattributes routes it
    driver_times = alternate(ctx.repeat, _git_merge(root, ours, theirs))[0]
    through_git = _tree(root, "HEAD")
    same = all(through_git.get(name) == text for name, text in result.files.items() if name.endswith(".md")
               and name != "memory/INDEX.md")
    attributes.write_text("memory/** merge=text\n", encoding="utf-8")
    text_times = alternate(ctx.repeat, _git_merge(root, ours, theirs))[0]
    attributes.unlink()
    rows.append(Row(SECTION, "git merge through the merge driver", median_of(driver_times), median_of(text_times),
                    "", None, f"(baseline: git's own text merge; same .md text as in-process: {same})"))
    return rows
