from __future__ import annotations

from apm_git.store.config import parse_config
from tests.checks.helpers import findings, snapshot

HOOK = "apm-budget"


def lines(count: int) -> str:
    return "".join(f"line {n}\n" for n in range(count))


def test_over_budget_names_the_file_and_n_of_m_lines() -> None:
    (finding,) = findings(snapshot({}, {"people.md": lines(101)}), HOOK)
    assert finding.path == "memory/people.md" and finding.line == 101
    assert finding.message.startswith("101/100 lines")


def test_at_budget_and_files_without_a_budget_pass() -> None:
    snap = snapshot({}, {"people.md": lines(100), "main/longterm.md": lines(5000), "archive/2026-04.md": lines(900)})
    assert findings(snap, HOOK) == []


def test_journals_groups_and_overrides_from_apm_yaml() -> None:
    config = parse_config("budgets:\n  journal: 3\n  groups/*/experience.md: 2\n  people.md: null\n")
    snap = snapshot({}, {"2026-04-06.md": lines(4), "groups/a/experience.md": lines(3), "people.md": lines(999)},
                    config=config)
    assert [(f.path, f.message.split(":")[0]) for f in findings(snap, HOOK)] == [
        ("memory/2026-04-06.md", "4/3 lines"), ("memory/groups/a/experience.md", "3/2 lines"),
    ]


def test_a_last_line_without_a_line_end_counts() -> None:
    assert findings(snapshot({}, {"people.md": lines(100) + "one more"}), HOOK)


def test_a_journal_over_its_budget_points_at_deep_sleep_and_the_journal_budget_not_at_rem() -> None:
    (finding,) = findings(snapshot({}, {"2026-04-06.md": lines(130)}), HOOK)
    assert finding.path == "memory/2026-04-06.md" and finding.line == 101
    assert finding.message.startswith("130/100 lines: over its line budget by 30; deep sleep promotes its items")
    assert "`apm-git deep-sleep`" in finding.message
    assert "a memory several agents share" in finding.message
    assert finding.message.endswith("`budgets` -> `journal` in apm.yaml")
    assert "apm-git rem" not in finding.message  # REM never scores or archives a journal's items


def test_a_journal_within_a_budget_raised_for_many_writers_passes() -> None:
    config = parse_config("budgets:\n  journal: 400\n")
    assert findings(snapshot({}, {"2026-04-06.md": lines(399)}, config=config), HOOK) == []
    assert config.budget_for("2026-04-06.md") == 400
