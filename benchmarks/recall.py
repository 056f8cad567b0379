"""Recall on real memory: questions over the shared real workspaces, each with the file (and heading)
that answers it.  Reports recall@5 of `apm-git search`, the share of intents whose `load` includes
the answering section, and the share of prompts for which the per-prompt hook (`apm-git recall`, its
default budget) returns a passage of it, per workspace and in all.  With `--meaning` each workspace is
embedded first (`apm-git embed`, the extra `apm-git[meaning]`), `search` is `search --meaning`, and the hook
finds the vectors.

The workspaces are read at run time from `../shared/realworld/cases` beside the repository (or
$APM_GIT_REALWORLD_CASES); each is copied to a temporary folder and made a memory repository with
`apm-git init --no-install`.  Without them the benchmark says so and exits 0.

    .venv/bin/python benchmarks/recall.py            # every question
    .venv/bin/python benchmarks/recall.py --misses   # and the questions whose answer was not found
    .venv/bin/python benchmarks/recall.py --meaning  # by meaning and words
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
APM = (str(Path(sys.executable).parent / "apm-git"),)
ENV_CASES = "APM_GIT_REALWORLD_CASES"
TOP = 5
BUDGET = "4000"


@dataclasses.dataclass(frozen=True)
class Question:
    case: str
    ask: str
    file: str  # memory-relative
    heading: str | None = None  # a part of the answering section's heading


def q(case: str, ask: str, file: str, heading: str | None = None) -> Question:
    return Question(case, ask, file, heading)


INVEST = "0pill2-hue__openclaw-invest-workspace"
BRAIN = "854875058__brain-secretary"
AFU = "Afumoons__workspace-new"
AUREL = "AurelClaw__TrueCore"
CORVUS = "CorvusBot1__corvus-openclaw-workspace"
VADER = "DarthVaderMS__agent-workspace"
DARYL = "DarylChiu__opc-workspace"
HOU = "Hou4007268__openclaw-backup"
MASANOV = "Masanov__claude-memory"
NOVA = "QQSHI13__nova-workspace"
HIDREAM = "zhy2015__hidream-bot-memory"

QUESTIONS = (
    # Korean
    q(INVEST, "기본 운영 모델을 무엇으로 확정했나", "2026-02-15.md", "운영 모델 결정"),
    q(INVEST, "텔레그램 수집 안정화 allowlist", "2026-02-15.md", "텔레그램 수집 안정화"),
    q(INVEST, "룩어헤드 제거 백테스트 수정", "2026-02-16.md", "C1 - 룩어헤드 제거"),
    q(INVEST, "조회 성능 QUERY_MAX_CODES", "2026-02-15.md", "조회 성능 개선"),
    # Chinese
    q(BRAIN, "铁塔项目的仓库和工作分支", "project-context.md", "Tower-Eye"),
    q(BRAIN, "自动打回闭环 什么时候才询问用户", "workflow-patterns.md", "自动打回闭环"),
    q(BRAIN, "项目注册表真源文件在哪", "project-context.md", "项目真源"),
    # English
    q(AFU, "PowerShell && separator fails", "lessons.md", "[L-2026-04-01]"),
    q(AFU, "python -c multiline syntax error in PowerShell", "lessons.md", "[L-2026-04-02]"),
    q(AFU, "when should the pool state be reset after pipeline changes", "lessons.md", "Pool state reset"),
    q(AFU, "is the 30 percent max portfolio drawdown a bug", "lessons.md", "max_portfolio_drawdown_pct"),
    q(AFU, "hyperliquid adapter safety rules", "projects/hyperliquid_adapter.md", "Safety rules"),
    q(AFU, "save_pool atomicity state integrity risk", "projects/autonomous_trading_ai-claude-findings-triage.md",
      "save_pool()"),
    # German
    q(AUREL, "Welche Komponenten hat das World Model mit Counterfactual Engine", "ZIEL-009-world-model.md",
      "KOMPONENTEN"),
    q(AUREL, "Fortschritte beim Verstehen von USER.md", "ZIEL-004.md", "Aktuelle Fortschritte"),
    q(AUREL, "Zellulare Architektur Membran", "ZIEL-010-cellular-architecture.md", "MEMBRAN"),
    q(AUREL, "Entscheidungs-Architektur im Nachtmodus", "decision_transparency_log.md", "NACHTMODUS"),
    # English
    q(CORVUS, "are informants deployable for operations", "2026-02-07.md", "INFORMANTS ARE NOT DEPLOYABLE"),
    q(CORVUS, "what accent does NeverSpeakAgain want", "people.md", "NeverSpeakAgain"),
    q(CORVUS, "AsyncWar six kingdom stats", "asyncwar.md", "Six Kingdom Stats"),
    q(CORVUS, "secret cowboys reveal options", "secret-cowboy.md", "Reveal Options"),
    q(VADER, "why was Komodo down, MongoDB would not start", "incidents.md", "Komodo Down"),
    q(VADER, "pve-02 kernel boot panic missing initrd", "incidents.md", "pve-02 Kernel 7 Boot Panic"),
    q(VADER, "vouch trusted proxy auth for openclaw", "decisions.md", "Vouch Auth for Vader OpenClaw"),
    q(VADER, "caddy route map", "caddy.md", "Route Map"),
    q(VADER, "daily openclaw backup cron", "crons.md", "OpenClaw Daily Backup"),
    q(VADER, "home assistant garage sensors", "home-assistant.md", "Garage"),
    # Chinese
    q(DARYL, "WebSocket 竞态条件 盲等", "lessons.md", "WebSocket 竞态条件"),
    q(DARYL, "API Key 手打错字母", "lessons.md", "API Key 复制粘贴陷阱"),
    q(DARYL, "Bryson 用哪个模型路由", "model-routing.md", "当前策略"),
    q(DARYL, "决策授权矩阵", "workflow-rules.md", "决策授权矩阵"),
    q(HOU, "cron 优化 token 消耗太高", "lessons/cron-discipline.md", "Cron优化"),
    q(HOU, "智能存储路由的禁止规则", "强制规则/强制规则_智能存储路由.md", "禁止规则"),
    q(HOU, "每周存储复盘 什么时候触发", "强制规则/强制规则_每周存储复盘.md", "触发时间"),
    q(HOU, "CSP 故障排查", "2026-02-16.md", "CSP故障排查"),
    # Russian
    q(MASANOV, "кто такой Алексей", "people.md", "Aleksei"),
    q(MASANOV, "спираль маскировки", "current_focus.md", "спираль маскировки"),
    q(MASANOV, "вопрос Ильи что ты пытаешься сохранить", "people.md", "Илья"),
    q(MASANOV, "загадка про килограмм пуха и свинца", "people.md", "Андрей"),
    # English
    q(NOVA, "file deletion safety trash instead of rm", "lessons.md", "File Deletion Safety"),
    q(NOVA, "double click does not work on touch devices", "lessons.md", "Mobile Web Development"),
    q(NOVA, "maxlength broke PeerJS ids", "lessons.md", "Input Validation Gotchas"),
    q(NOVA, "browser tool timeout bug", "bugs/browser-tool-timeout.md"),
    q(NOVA, "session persistence critical behavior", "health.md", "Session Persistence Behavior"),
    # Chinese
    q(HIDREAM, "代理端口 翻墙", "network-proxy-rules.md", "网络代理"),
    q(HIDREAM, "git 仓库配置 文件传输", "tools-config.md", "Git 仓库配置"),
)


@dataclasses.dataclass
class Outcome:
    question: Question
    rank: int | None  # 1-based rank of the first hit in the answering section, among the first TOP
    loaded: bool  # whether `load --intent` included the answering section
    recalled: bool  # whether the hook (`recall`) returned a passage of the answering section


def cases_dir() -> Path | None:
    candidates = [Path(os.environ[ENV_CASES])] if os.environ.get(ENV_CASES) else []
    candidates += [parent / "shared" / "realworld" / "cases" for parent in (ROOT.parent, ROOT.parent.parent)]
    return next((path for path in candidates if path.is_dir()), None)


def answer_span(root: Path, question: Question) -> tuple[int, int] | None:
    """The lines of the answering section: its heading to the line before the next heading of the same or
    a higher level (None: the whole file answers)."""
    if question.heading is None:
        return None
    lines = (root / "memory" / question.file).read_text(encoding="utf-8").split("\n")
    fenced, inside = [], False  # a `# comment` in a fenced code block is no heading
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            inside = not inside
        fenced.append(inside)
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith("#") and question.heading in line and not fenced[number - 1]:
            level = _level(line)
            end = next((other for other in range(number + 1, len(lines) + 1)
                        if 0 < _level(lines[other - 1]) <= level and not fenced[other - 1]), len(lines) + 1)
            return number, end - 1
    raise SystemExit(f"{question.case}: no heading with {question.heading!r} in {question.file}")


def _level(line: str) -> int:
    stripped = line.lstrip()
    level = len(stripped) - len(stripped.lstrip("#"))
    return level if 0 < level <= 6 and stripped[level:level + 1] in (" ", "\t") else 0


def apm(root: Path, *args: str) -> dict[str, Any]:
    proc = subprocess.run((*APM, "--json", *args), cwd=root, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"apm-git {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
    data = json.loads(proc.stdout)
    assert isinstance(data, dict)
    return data


def measure(root: Path, question: Question, meaning: bool) -> Outcome:
    wanted = f"memory/{question.file}"
    span = answer_span(root, question)
    hits = apm(root, "search", *(["--meaning"] if meaning else []), question.ask, "--limit", str(TOP))["hits"]
    rank = next((number for number, hit in enumerate(hits, start=1)
                 if hit["file"] == wanted and (span is None or span[0] <= hit["line"] <= span[1])), None)
    files = apm(root, "load", "--intent", question.ask, "--budget", BUDGET)["files"]
    sections = apm(root, "recall", question.ask)["sections"]
    recalled = any(item["file"] == wanted and (span is None or any(span[0] <= first <= span[1] or
                                                                   first <= span[0] <= last
                                                                   for first, last in item["lines"]))
                   for item in sections)
    return Outcome(question, rank, any(_includes(item, wanted, span) for item in files), recalled)


def _includes(item: dict[str, Any], wanted: str, span: tuple[int, int] | None) -> bool:
    path = str(item["path"])
    if path == wanted:  # the whole file, or a cut of it that reaches the answer
        return span is None or str(item["text"]).count("\n") + 1 >= span[0]
    if not path.startswith(wanted + ":"):
        return False
    if span is None:
        return True
    first, last = (int(part) for part in path.rsplit(":", 1)[1].split("-"))
    return first <= span[0] <= last or span[0] <= first <= span[1]


def prepare(cases: Path, case: str, workdir: Path, meaning: bool) -> Path:
    root = workdir / case
    if not root.exists():
        shutil.copytree(cases / case, root)
        subprocess.run((*APM, "init", "--no-install", str(root)), capture_output=True, check=True)
        if meaning:
            apm(root, "embed")
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--misses", action="store_true", help="List the questions whose answer was not found.")
    parser.add_argument("--meaning", action="store_true", help="Embed each workspace; search and recall by meaning.")
    args = parser.parse_args(argv)
    cases = cases_dir()
    if cases is None:
        print(f"recall: skipped: the shared real workspaces are absent (../shared/realworld/cases or ${ENV_CASES})")
        return 0
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="apm-recall-") as temp:
        for question in QUESTIONS:
            if not (cases / question.case).is_dir():
                continue
            outcomes.append(measure(prepare(cases, question.case, Path(temp), args.meaning), question, args.meaning))
    if not outcomes:
        print("recall: skipped: none of the questions' workspaces is present")
        return 0
    report(outcomes, misses=args.misses)
    return 0


def report(outcomes: list[Outcome], *, misses: bool) -> None:
    print(f"{'workspace':<40} {'questions':>9} {'recall@5':>9} {'load':>6} {'hook':>6}")
    for case in dict.fromkeys(outcome.question.case for outcome in outcomes):
        mine = [outcome for outcome in outcomes if outcome.question.case == case]
        print(f"{case:<40} {len(mine):>9} {_share(mine, lambda o: o.rank is not None):>9} "
              f"{_share(mine, lambda o: o.loaded):>6} {_share(mine, lambda o: o.recalled):>6}")
    print(f"{'all':<40} {len(outcomes):>9} {_share(outcomes, lambda o: o.rank is not None):>9} "
          f"{_share(outcomes, lambda o: o.loaded):>6} {_share(outcomes, lambda o: o.recalled):>6}")
    if misses:
        for outcome in outcomes:
            if outcome.rank is None or not outcome.loaded or not outcome.recalled:
                what = ("search" if outcome.rank is None else "") + (" load" if not outcome.loaded else "") \
                    + (" hook" if not outcome.recalled else "")
                print(f"  miss ({what.strip()}): {outcome.question.case}: {outcome.question.ask!r} -> "
                      f"{outcome.question.file} {outcome.question.heading or ''}")


def _share(outcomes: list[Outcome], good: object) -> str:
    assert callable(good)
    return f"{sum(1 for outcome in outcomes if good(outcome)) / len(outcomes):.2f}"


if __name__ == "__main__":
    sys.exit(main())
