"""Comments and docs cite documents a reader has: every `docs/X.md` named exists, every section of
docs/design.md cited is a heading there, and no citation of the old out-of-tree design file remains."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
CITED_DOC = re.compile(r"docs/([A-Za-z0-9_-]+)\.md")
DESIGN_SECTION = re.compile(r"docs/design\.md (\d+(?:\.\d+)?)((?:, \d+(?:\.\d+)?)*)")
BARE_DESIGN = re.compile(r"\bDESIGN(?:'s| \d)")
MARKDOWN_LINK = re.compile(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)")
CITED_TEST = re.compile(r"\btests/[A-Za-z0-9_/]+\.(?:py|tsv|md)")
# tests/ mirrors apm_git/ (docs/development.md, "Tests"); these folders are the documented exceptions
NOT_A_PACKAGE_FOLDER = {"e2e", "project", "loading"}


def sources() -> list[Path]:
    found = [*sorted((ROOT / "apm_git").rglob("*.py")), *sorted((ROOT / "benchmarks").rglob("*.py"))]
    found += [p for p in sorted((ROOT / "tests").rglob("*.py")) if p.name != "test_docs.py"]
    return [*found, ROOT / "README.md", ROOT / "benchmarks" / "README.md", *sorted(DOCS.glob("*.md"))]


def design_sections() -> set[str]:
    text = (DOCS / "design.md").read_text(encoding="utf-8")
    return set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", text, flags=re.MULTILINE))


def test_design_keeps_its_section_numbers() -> None:
    assert {"1", "2", "2.1", "2.2", "3", "4", "5", "6", "7"} <= design_sections()


def test_every_cited_doc_exists() -> None:
    missing = []
    for path in sources():
        for name in CITED_DOC.findall(path.read_text(encoding="utf-8")):
            if not (DOCS / f"{name}.md").is_file():
                missing.append(f"{path.relative_to(ROOT)}: docs/{name}.md")
    assert missing == []


def test_the_package_cites_docs() -> None:
    # the rewrite of the citations reached the package: a comment that cited the design cites docs/design.md
    package = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "apm_git").rglob("*.py"))
    assert package.count("docs/design.md") >= 20


def test_every_cited_design_section_exists() -> None:
    sections = design_sections()
    wrong = []
    for path in sources():
        for first, more in DESIGN_SECTION.findall(path.read_text(encoding="utf-8")):
            for number in [first, *re.findall(r"\d+(?:\.\d+)?", more)]:
                if number not in sections:
                    wrong.append(f"{path.relative_to(ROOT)}: docs/design.md {number}")
    assert wrong == []


def test_no_citation_of_a_design_file_outside_the_repository() -> None:
    bare = []
    for path in sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if BARE_DESIGN.search(line):
                bare.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert bare == []


def test_links_between_docs_resolve() -> None:
    broken = []
    for path in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        for target in MARKDOWN_LINK.findall(path.read_text(encoding="utf-8")):
            if "://" not in target and not (path.parent / target).is_file():
                broken.append(f"{path.relative_to(ROOT)}: {target}")
    assert broken == []


def test_every_cited_test_file_exists() -> None:
    cited = [ROOT / ".ci" / "run", ROOT / ".pre-commit-hooks.yaml", *sources()]
    missing = []
    for path in cited:
        for name in CITED_TEST.findall(path.read_text(encoding="utf-8")):
            if not (ROOT / name).is_file():
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert missing == []


def test_tests_mirror_the_package() -> None:
    # a module at the package's root (apm_git/git.py) has its tests at the root of tests/ (test_git*.py)
    modules = {p.stem for p in (ROOT / "apm_git").glob("*.py") if not p.stem.startswith("_")}
    flat = sorted(p.name for p in (ROOT / "tests").glob("test_*.py"))
    astray = [name for name in flat if not any(name.startswith(f"test_{module}") for module in modules)]
    assert astray == [], "a test lives in the folder of the module it tests (docs/development.md, 'Tests')"
    packages = {p.name for p in (ROOT / "apm_git").iterdir() if (p / "__init__.py").is_file()}
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and not p.name.startswith((".", "__"))}
    assert folders - packages - NOT_A_PACKAGE_FOLDER == set()
    assert all((ROOT / "tests" / folder / "__init__.py").is_file() for folder in folders)
