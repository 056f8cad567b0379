"""`apm-git ci github|gitlab`: the files written, validated, and their steps run against real branches.

The workflow's `run:` steps are taken out of the written YAML and run as GitHub runs them
(`bash --noprofile --norc -eo pipefail`), in a full clone as `actions/checkout` with
`fetch-depth: 0` leaves it, with the `${{ … }}` expressions they use filled in. The install step
is not run (it would need the package index); its text is checked. The comment step's script runs
under node against an in-memory stand-in of GitHub's REST API, never the network.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git
from tests.histories import Review, review_whose_merge_drops_an_entry, review_with_dreams_and_a_merge

WORKFLOW = ".github/workflows/apm-memory.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
MARKER = "<!-- apm-git-diff -->"


def load(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


SPEC = "apm-git @ git+https://example.invalid/apm-git.git@" + "0123456789abcdef" * 2 + "01234567"


def ci(run_cli: Invoke, repo: MemoryRepo, *args: str) -> tuple[int, str, str]:
    """`apm-git ci ARGS`, with an install spec (this test run's apm-git is a local folder, which CI cannot
    install from: tests/commands/test_ci_install.py)."""
    spec = [] if any(arg.startswith("--install-spec") for arg in args) else ["--install-spec", SPEC]
    ran = run_cli("--repo", str(repo.root), "ci", *args, *spec)
    return ran.exit_code, ran.stdout, ran.stderr


def checkout(repo: MemoryRepo, into: Path, head: str) -> Path:
    """What `actions/checkout` with `fetch-depth: 0` and `ref: <head sha>` leaves: a full clone at the head."""
    git(into.parent, "clone", "--quiet", "--no-local", str(repo.root), str(into))
    git(into, "checkout", "--quiet", "--detach", head)
    return into


def run_script(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script), cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)


class GithubJob:
    """The written workflow's one job, with its steps' env filled in as GitHub would for one pull request."""

    def __init__(self, path: Path, review: Review, tmp: Path) -> None:
        self.workflow = load(path)
        (self.job,) = self.workflow["jobs"].values()
        self.steps = {step.get("id", step.get("name")): step for step in self.job["steps"]}
        self.values = {
            "github.event.pull_request.base.sha": review.base,
            "github.event.pull_request.head.sha": review.head,
            "github.event.pull_request.number": "7",
        }
        self.summary = tmp / "summary.md"
        self.runner_temp = tmp / "runner-temp"
        self.runner_temp.mkdir()

    def fill(self, value: object) -> str:
        def one(match: re.Match[str]) -> str:
            assert match[1] in self.values, f"an expression the test does not know: {match[1]}"
            return self.values[match[1]]

        return EXPRESSION.sub(one, str(value))

    def env(self, step: dict[str, Any], workspace: Path) -> dict[str, str]:
        env = {**os.environ, "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(workspace),
               "GITHUB_STEP_SUMMARY": str(self.summary), "RUNNER_TEMP": str(self.runner_temp)}
        for scope in (self.job.get("env", {}), step.get("env", {})):
            env.update({name: self.fill(value) for name, value in scope.items()})
        return env

    def run(self, step_id: str, workspace: Path) -> subprocess.CompletedProcess[str]:
        step = self.steps[step_id]
        proc = run_script(step["run"], workspace, self.env(step, workspace))
        self.values[f"steps.{step_id}.outcome"] = "success" if proc.returncode == 0 else "failure"
        return proc


@pytest.mark.slow
def test_ci_github_writes_a_valid_workflow_once_and_never_overwrites(repo: MemoryRepo, run_cli: Invoke) -> None:
    code, out, _ = ci(run_cli, repo, "github")
    assert code == 0 and out.startswith(f"apm-git: {WORKFLOW}: written"), out
    path = repo.root / WORKFLOW
    proc = subprocess.run(("check-jsonschema", "--builtin-schema", "vendor.github-workflows", str(path)),
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    workflow = load(path)
    assert list(workflow["on"]) == ["pull_request"]
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write"}
    (job,) = workflow["jobs"].values()
    uses = [step.get("uses", "").split("@")[0] for step in job["steps"]]
    assert uses == ["actions/checkout", "actions/setup-python", "", "", "", "actions/github-script"]
    assert job["steps"][0]["with"]["fetch-depth"] == 0
    assert job["env"]["APM_GIT_INSTALL"] == SPEC
    assert job["steps"][0]["with"]["persist-credentials"] is False
    text = path.read_text()
    pins = re.findall(r"uses: ([\w/-]+)@(\S+)  # (v[\d.]+)\n", text)
    assert [name for name, _, _ in pins] == ["actions/checkout", "actions/setup-python", "actions/github-script"]
    assert all(re.fullmatch(r"[0-9a-f]{40}", sha) for _, sha, _ in pins), pins
    assert text.count("uses:") == len(pins)
    install = next(step for step in job["steps"] if step.get("id") == "install")
    assert install["run"] == 'python -m pip install "$APM_GIT_INSTALL"'
    assert git(repo.root, "status", "--porcelain", "--", "memory") == "", "nothing of the memory changed"
    # Idempotent; an edited file is left alone unless --force; a user's own file even then.
    first = path.read_bytes()
    assert ci(run_cli, repo, "github")[1].startswith(f"apm-git: {WORKFLOW}: unchanged")
    path.write_text(path.read_text() + "# my edit\n")
    code, _, err = ci(run_cli, repo, "github")
    assert code == 3 and "left alone; `apm-git ci github --force` rewrites it" in err
    assert path.read_text().endswith("# my edit\n")
    code, out, _ = ci(run_cli, repo, "github", "--force")
    assert code == 0 and "rewritten" in out and path.read_bytes() == first
    path.write_text("name: mine\n")
    for args in (["github"], ["github", "--force"]):
        code, _, err = ci(run_cli, repo, *args)
        assert code == 3 and "apm-git did not write it; left alone" in err
        assert path.read_text() == "name: mine\n"


@pytest.mark.slow
def test_the_schema_check_bites(repo: MemoryRepo, run_cli: Invoke, tmp_path: Path) -> None:
    ci(run_cli, repo, "github")
    broken = tmp_path / "broken.yml"
    broken.write_text((repo.root / WORKFLOW).read_text().replace("runs-on: ubuntu-latest", "runs_on: ubuntu-latest"))
    proc = subprocess.run(("check-jsonschema", "--builtin-schema", "vendor.github-workflows", str(broken)),
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stdout


def test_an_install_spec_of_any_shape_stays_one_value(repo: MemoryRepo, run_cli: Invoke) -> None:
    spec = "apm-git @ git+https://example.invalid/apm-git.git@v1 # \"quoted\""
    assert ci(run_cli, repo, "github", "--install-spec", spec)[0] == 0
    assert ci(run_cli, repo, "gitlab", "--install-spec", spec)[0] == 0
    assert load(repo.root / WORKFLOW)["jobs"]["review"]["env"]["APM_GIT_INSTALL"] == spec
    assert load(repo.root / ".gitlab-ci.yml")["apm-memory"]["variables"]["APM_GIT_INSTALL"] == spec
    for bad in ("", "apm-git\nrm -rf /"):
        code, _, err = ci(run_cli, repo, "github", "--force", "--install-spec", bad)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "--install-spec" in err


def test_a_link_in_place_of_the_workflow_is_refused(repo: MemoryRepo, run_cli: Invoke, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.yml"
    elsewhere.write_text("keep: me\n")
    (repo.root / ".github/workflows").mkdir(parents=True)
    (repo.root / WORKFLOW).symlink_to(elsewhere)
    code, _, err = ci(run_cli, repo, "github", "--force")
    assert code == 3 and "a link or not a regular file" in err
    assert elsewhere.read_text() == "keep: me\n"


@pytest.mark.slow
def test_the_workflow_steps_pass_on_a_clean_range_with_dreams_and_a_merge(
    repo: MemoryRepo, run_cli: Invoke, tmp_path: Path,
) -> None:
    review = review_with_dreams_and_a_merge(run_cli, repo.root)
    ci(run_cli, repo, "github")
    job = GithubJob(repo.root / WORKFLOW, review, tmp_path)
    work = checkout(repo, tmp_path / "checkout", review.head)
    gate = job.run("gate", work)
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert "0 finding(s)" in gate.stderr and "1 merge commit(s) against each parent" in gate.stderr
    diff = job.run("diff", work)
    assert diff.returncode == 0, diff.stderr
    shown = subprocess.run(("apm-git", "diff", f"{review.base}..{review.head}", "--format", "markdown"),
                           cwd=work, capture_output=True, text=True, check=True).stdout
    assert job.summary.read_text() == shown and "2026-05-21-deploy-on-tuesdays" in shown
    assert (job.runner_temp / "apm-memory-diff.md").read_text() == shown
    step = job.steps["Memory diff (one pull request comment, updated)"]
    assert "steps.diff.outcome == 'success'" in step["if"]  # the comment waits on the diff step
    assert job.env(step, work)["GATE"] == "success"


@pytest.mark.slow
def test_a_pushed_proposal_branch_gets_the_same_gate_and_comment(
    repo: MemoryRepo, run_cli: Invoke, tmp_path: Path,
) -> None:
    """A consolidation proposal (`rem --propose`) pushed and opened as a pull request: the gate passes and the
    diff that the comment posts lists what it would archive, so a team reviews it like code."""
    (repo.memory / "lessons.md").write_text("# Lessons\n\n" + "".join(
        f"## [2026-02-0{i}] Old lesson {i}\n- Tags: lesson\n- Fitness: last_referenced=2026-02-0{i}, hit_count=0, "
        f"decision_value=LOW\n- Body: old {i}\n\n" for i in range(1, 4)))
    june = {"APM_GIT_NOW": "2026-06-01T10:00:00+00:00"}
    assert run_cli("--repo", str(repo.root), "flush", env=june).exit_code == 0
    assert run_cli("--repo", str(repo.root), "rem", "--propose", env=june).exit_code == 0
    base = git(repo.root, "rev-parse", "HEAD").strip()
    head = git(repo.root, "rev-parse", "apm-git/proposals/rem-2026-06-01").strip()
    ci(run_cli, repo, "github")
    job = GithubJob(repo.root / WORKFLOW, Review(base, head, head), tmp_path)
    work = checkout(repo, tmp_path / "checkout", head)
    gate = job.run("gate", work)
    assert gate.returncode == 0 and "0 finding(s)" in gate.stderr, gate.stdout + gate.stderr
    assert job.run("diff", work).returncode == 0
    shown = job.summary.read_text()
    assert all(f"2026-02-0{i}-old-lesson-{i}" in shown for i in range(1, 4)) and "archived" in shown


@pytest.mark.slow
def test_the_gate_fails_on_a_merge_that_drops_an_entry(repo: MemoryRepo, run_cli: Invoke, tmp_path: Path) -> None:
    review, dropped = review_whose_merge_drops_an_entry(run_cli, repo.root)
    ci(run_cli, repo, "github")
    job = GithubJob(repo.root / WORKFLOW, review, tmp_path)
    work = checkout(repo, tmp_path / "checkout", review.head)
    gate = job.run("gate", work)
    assert gate.returncode == 1
    assert f"apm-no-loss: merge {review.merge[:12]} against its parent 2" in gate.stdout and dropped in gate.stdout


@pytest.mark.slow
def test_the_gate_fails_on_a_range_that_loses_an_entry(repo: MemoryRepo, run_cli: Invoke, tmp_path: Path) -> None:
    review = review_with_dreams_and_a_merge(run_cli, repo.root)
    git(repo.root, "rm", "--quiet", "memory/lessons.md")
    git(repo.root, "commit", "--quiet", "--no-verify", "-m", "drop the lessons")
    review = review._replace(head=git(repo.root, "rev-parse", "HEAD").strip())
    ci(run_cli, repo, "github")
    job = GithubJob(repo.root / WORKFLOW, review, tmp_path)
    work = checkout(repo, tmp_path / "checkout", review.head)
    gate = job.run("gate", work)
    assert gate.returncode == 1
    assert "apm-no-loss: entry 2026-05-10-retry-the-flaky-test-once" in gate.stdout
    diff = job.run("diff", work)  # the reviewer needs the diff most when the gate failed
    assert diff.returncode == 0, diff.stderr
    assert "2026-05-10-retry-the-flaky-test-once" in job.summary.read_text()
    assert job.env(job.steps["Memory diff (one pull request comment, updated)"], work)["GATE"] == "failure"


NODE_HARNESS = r"""
const fs = require('fs');
const [scriptFile, stateFile] = process.argv.slice(2);
const state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
const calls = [];
const github = {
  paginate: async (method, params) => (await method(params)).data,
  rest: { issues: {
    listComments: async (p) => {
      calls.push('list');
      return { data: state.comments.filter((c) => c.issue === p.issue_number) };
    },
    createComment: async (p) => {
      calls.push('create');
      const user = { login: 'github-actions[bot]' };
      state.comments.push({ id: state.comments.length + 1, issue: p.issue_number, user, body: p.body });
    },
    updateComment: async (p) => {
      calls.push('update');
      state.comments.find((c) => c.id === p.comment_id).body = p.body;
    },
  } },
};
const context = { repo: { owner: 'owner', repo: 'memory' }, issue: { number: 7 } };
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
new AsyncFunction('github', 'context', 'require', fs.readFileSync(scriptFile, 'utf8'))(github, context, require)
  .then(() => { state.calls = calls; fs.writeFileSync(stateFile, JSON.stringify(state)); });
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the comment script cannot run")
def test_the_comment_step_posts_one_comment_and_updates_it(repo: MemoryRepo, run_cli: Invoke, tmp_path: Path) -> None:
    ci(run_cli, repo, "github")
    workflow = load(repo.root / WORKFLOW)
    (step,) = [step for step in workflow["jobs"]["review"]["steps"] if "github-script" in step.get("uses", "")]
    (tmp_path / "script.js").write_text(step["with"]["script"])
    (tmp_path / "harness.js").write_text(NODE_HARNESS)
    state = tmp_path / "state.json"
    human = {"id": 1, "issue": 7, "user": {"login": "reviewer"}, "body": f"quoting {MARKER} here"}
    state.write_text(json.dumps({"comments": [human]}))
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()

    def post(diff: str, gate: str) -> dict[str, Any]:
        (runner_temp / "apm-memory-diff.md").write_text(diff)
        env = {**os.environ, "RUNNER_TEMP": str(runner_temp), "GATE": gate}
        subprocess.run(("node", "harness.js", "script.js", str(state)), cwd=tmp_path, env=env, check=True)
        data: dict[str, Any] = json.loads(state.read_text())
        return data

    data = post("## Memory diff\n\nfirst push\n", "success")
    assert data["calls"] == ["list", "create"]
    passed = f"{MARKER}\n**apm-git lint** on this range: passed.\n\n"
    assert data["comments"][1]["body"] == passed + "## Memory diff\n\nfirst push\n"
    data = post("## Memory diff\n\nsecond push\n", "failure")
    assert data["calls"] == ["list", "update"]
    assert [comment["body"] for comment in data["comments"]] == [
        human["body"],
        f"{MARKER}\n**apm-git lint** on this range: did not pass (failure).\n\n## Memory diff\n\nsecond push\n",
    ]
    data = post("x" * 70_000, "success")
    assert len(data["comments"]) == 2 and len(data["comments"][1]["body"]) <= 65_536
    assert data["comments"][1]["body"].endswith("*Cut at the comment limit: the job summary has the whole diff.*")

    # Names in memory text notify no one; a cut inside <details> (and a code fence in it) closes them.
    rows = "".join(f"- entry {number}: asked @alice and @org/team, mail bob@example.org\n" for number in range(2000))
    head = rows[:rows.index("- entry 150:")]
    big = ("## Memory diff\n\n<details><summary>2000 entries</summary>\n\n" + head + "```\n" + rows
           + "```\n</details>\n\n<sub>end</sub>\n")
    body = post(big, "success")["comments"][1]["body"]
    assert len(body) <= 65_536 and "Cut at the comment limit" in body
    assert "@alice" not in body and "@org/team" not in body and "@\u200balice" in body
    shown = body.split("*Cut at the comment limit")[0]
    assert shown.count("<details>") == shown.count("</details>") == 1
    assert shown.count("```") % 2 == 0, "the code fence is closed before </details>"
    assert shown.index("</details>") > shown.rindex("```")


def gitlab_env(job: dict[str, Any], tmp: Path, **ci_vars: str) -> dict[str, str]:
    return {**os.environ, "CI": "true", "GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "merge_request_event",
            **{name: str(value) for name, value in job["variables"].items()}, **ci_vars}


@pytest.mark.slow
def test_ci_gitlab_writes_a_job_whose_script_runs_the_same_gate(
    repo: MemoryRepo, run_cli: Invoke, tmp_path: Path,
) -> None:
    review = review_with_dreams_and_a_merge(run_cli, repo.root)
    code, out, _ = ci(run_cli, repo, "gitlab")
    assert code == 0 and out.startswith("apm-git: .gitlab-ci.yml: written"), out
    proc = subprocess.run(
        ("check-jsonschema", "--builtin-schema", "vendor.gitlab-ci", str(repo.root / ".gitlab-ci.yml")),
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    job = load(repo.root / ".gitlab-ci.yml")["apm-memory"]
    assert job["variables"]["GIT_DEPTH"] == "0"
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    assert job["artifacts"]["paths"] == ["apm-memory-diff.md"] and job["artifacts"]["when"] == "always"
    install, *script = job["script"]
    assert install == 'python -m pip install "$APM_GIT_INSTALL"'
    assert any(line.startswith("apm-git lint --from-ref") for line in script)
    work = checkout(repo, tmp_path / "checkout", review.head)
    env = gitlab_env(job, tmp_path, CI_MERGE_REQUEST_DIFF_BASE_SHA=review.base, CI_COMMIT_SHA=review.head)
    ran = run_script("\n".join(script), work, env)  # GitLab stops at the first line that fails, as -e does
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 merge commit(s) against each parent" in ran.stderr
    assert "2026-05-21-deploy-on-tuesdays" in (work / "apm-memory-diff.md").read_text()
    # A second run is idempotent; a user's own .gitlab-ci.yml gets an include file beside it instead.
    assert ci(run_cli, repo, "gitlab")[1].startswith("apm-git: .gitlab-ci.yml: unchanged")
    (repo.root / ".gitlab-ci.yml").write_text("stages: [build, test]\n")
    code, out, _ = ci(run_cli, repo, "gitlab")
    assert code == 0 and "apm-git: .gitlab/apm-memory.yml: written" in out and "- local: .gitlab/apm-memory.yml" in out
    assert (repo.root / ".gitlab-ci.yml").read_text() == "stages: [build, test]\n"
    (repo.root / ".gitlab-ci.yml").write_text("include:\n  - local: .gitlab/apm-memory.yml\n")
    code, out, _ = ci(run_cli, repo, "gitlab")
    assert code == 0 and "unchanged" in out and "include" not in out


@pytest.mark.slow
def test_the_gitlab_gate_fails_on_a_merge_that_drops_an_entry(
    repo: MemoryRepo, run_cli: Invoke, tmp_path: Path,
) -> None:
    review, dropped = review_whose_merge_drops_an_entry(run_cli, repo.root)
    ci(run_cli, repo, "gitlab")
    job = load(repo.root / ".gitlab-ci.yml")["apm-memory"]
    work = checkout(repo, tmp_path / "checkout", review.head)
    # A merged-results pipeline: CI_COMMIT_SHA is GitLab's merge commit, the source branch's tip is given apart.
    env = gitlab_env(job, tmp_path, CI_MERGE_REQUEST_DIFF_BASE_SHA=review.base, CI_COMMIT_SHA=review.base,
                     CI_MERGE_REQUEST_SOURCE_BRANCH_SHA=review.head)
    ran = run_script("\n".join(job["script"][1:]), work, env)
    assert ran.returncode == 1 and dropped in ran.stdout, ran.stderr
    assert "apm-git lint: 1 finding(s)" in ran.stderr, "the diff ran first, then the gate failed"
    assert (work / "apm-memory-diff.md").read_text().strip(), "the diff is there, for the artifact"


@pytest.mark.slow
def test_a_one_commit_checkout_fails_the_gate_instead_of_passing_on_nothing(
    repo: MemoryRepo, run_cli: Invoke, tmp_path: Path,
) -> None:
    review, _ = review_whose_merge_drops_an_entry(run_cli, repo.root)
    ci(run_cli, repo, "github")
    job = GithubJob(repo.root / WORKFLOW, review, tmp_path)
    work = tmp_path / "shallow"  # what actions/checkout fetches without fetch-depth: 0
    git(tmp_path, "clone", "--quiet", "--depth", "1", "--branch", "pr", repo.root.as_uri(), str(work))
    gate = job.run("gate", work)
    assert gate.returncode == 2
    assert f"--from-ref {review.base}: no such commit here; fetch it first" in gate.stderr
