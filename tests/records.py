"""Build memory files for tests: records in the format of docs/design.md 2.1."""
from __future__ import annotations

from pathlib import Path


def record(
    day: str,
    title: str,
    kind: str = "decision",
    *,
    last: str | None = None,
    hits: int = 0,
    value: str = "MEDIUM",
    body: str | None = None,
    fields: tuple[tuple[str, str], ...] = (),
    proven: bool = False,
) -> str:
    lines = [
        f"## [{day}] {'[PROVEN] ' if proven else ''}{title}",
        f"- Tags: {kind}",
        f"- Fitness: last_referenced={last or day}, hit_count={hits}, decision_value={value}",
        f"- Body: {body or title}",
    ]
    lines += [f"- {name}: {text}" for name, text in fields]
    return "\n".join(lines) + "\n\n"


def memory_file(*records: str, title: str = "Memory") -> str:
    return f"# {title}\n\n" + "".join(records)


def write(memory: Path, rel: str, *records: str) -> None:
    path = memory / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(memory_file(*records), encoding="utf-8")
