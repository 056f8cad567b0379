"""The scanner's contract: suspects with a fingerprint, a prefilter that never misses, no drift from detect-secrets."""
from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest
from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.plugins.keyword import DENYLIST

from apm_git.secret_scan import Suspect, scan
from apm_git.secret_scan.plugins import PLUGINS
from apm_git.secret_scan.prefilter import KEY_WORDS, SEPARATOR, candidates
from apm_git.secret_scan.scanner import LEFT_OUT, detect, plugins
from tests.checks.test_no_secrets import SECRETS
from tests.secret_scan.test_corpus import credentials


def test_a_suspect_names_its_line_and_kind_and_fingerprints_the_secret_without_holding_it() -> None:
    token = SECRETS["GitHub Token"].split()[2]
    text = f"# Tools\n\nnothing here\n- Body: {SECRETS['GitHub Token']}\n"
    (suspect,) = scan(text)
    assert suspect == Suspect(4, "GitHub Token", hashlib.sha1(token.encode()).hexdigest())
    assert token not in repr(suspect)


def test_the_fingerprint_is_stable_across_lines_files_and_kinds_of_context() -> None:
    token = SECRETS["GitHub Token"].split()[2]
    one = scan(f"GITHUB_TOKEN={token}\n", "a.md")
    other = scan(f"\n\n- the token is {token} (rotated)\n", "b.md")
    assert [suspect.fingerprint for suspect in one] == [suspect.fingerprint for suspect in other]
    assert [suspect.line for suspect in other] == [3]


def test_an_allowlisted_line_is_never_a_suspect() -> None:
    assert scan(f"- Body: {SECRETS['GitHub Token']}  <!-- pragma: allowlist secret -->\n") == []


def test_the_prefilter_passes_every_line_the_scanner_flags() -> None:
    """The superset promise on every credential of the corpus, alone and inside prose."""
    for kind, line in credentials():
        assert detect("x.md", [(1, line)]), f"{kind} not found by the scanner: {line}"
        assert candidates(line), f"{kind} dropped by the prefilter: {line}"
        assert [found.number for found in candidates(f"# Notes\n\nplain words\n{line}\nmore words\n")] == [4]


def test_every_detect_secrets_plugin_runs_and_has_an_example_in_the_corpus() -> None:
    """A plugin that a newer detect-secrets adds runs at once; this test then asks for examples of it."""
    running = {type(plugin).__name__ for plugin in plugins()}
    builtin = {cls.__name__ for cls in get_mapping_from_secret_type_to_class().values()}
    assert builtin - set(LEFT_OUT) <= running
    assert {cls.__name__ for cls in PLUGINS} <= running
    flagged = set()
    for _, line in credentials():
        for plugin in plugins():
            if plugin.analyze_line(filename="x.md", line=line, line_number=1):
                flagged.add(type(plugin).__name__)
    assert running - flagged == set(), "plugins with no example in tests/secret_scan/credentials.tsv"


def test_every_keyword_of_detect_secrets_is_a_keyword_of_the_prefilter() -> None:
    import re

    for word in DENYLIST:
        sample = word.replace("_?", "_")
        assert re.search(rf"(?:{KEY_WORDS})[\w.-]*{SEPARATOR}", f"{sample} = x".lower()), word


def test_ordinary_memory_never_imports_detect_secrets() -> None:
    """The prefilter keeps the 80 ms import away from a flush of ordinary memory."""
    code = (
        "import sys\nfrom apm_git.secret_scan import scan\n"
        "text = open('tests/secret_scan/prose.md').read().split('## Key Events')[0].split('### Session notes')[0]\n"
        "assert scan(text) == []\nprint('detect_secrets' in sys.modules)\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "False"


@pytest.mark.parametrize(
    "line",
    [
        "- **Session Key**: agent:main:main",
        "- Key: `secrets/seo-miguel-ms-vader.json` (deleted)",
        "- Token: `TRACK17_TOKEN=<redacted>` added to ~/.openclaw/.env",
        "- Discord bot token: `JUP3HMgoZFO6BGc4ZgW3UFhbMX...` (in .env as DISCORD_TOKEN)",
        "password is required",
        "- Body: Stripe publishable key is pk_live_eIo8rMsvDnL2nkgI4IDAyzK2",
        "- Body: https://user:password@example.com from the docs",
    ],
)
def test_lines_that_only_talk_about_secrets_are_not_suspects(line: str) -> None:
    assert scan(line) == []
