#!/bin/sh
# Install apm-git into ./.venv and run it on a new demo memory repository.
# Usage: ./demo.sh [DEMO_DIR]   (default: a new temporary folder)
set -eu
cd "$(dirname "$0")"
python3 -m venv .venv
.venv/bin/pip install -q -e .
PATH="$PWD/.venv/bin:$PATH"
export PATH
demo=${1:-$(mktemp -d)/demo-memory}

# The demo moves a simulated clock through four days (APM_GIT_NOW; commits carry its dates).
export APM_GIT_NOW=2026-04-05T09:00:00
echo "== apm-git init $demo"
apm-git init "$demo"
cd "$demo"

echo "== Light sleep: the agent writes its journal as it works"
export APM_GIT_NOW=2026-04-05T10:00:00
apm-git journal add "Use Redis for the session cache; Memcached lost keys on restart." \
  --kind decision --tags cache,redis --value HIGH
apm-git journal add "The flaky login test was a race on the token refresh; await the refresh first." \
  --kind lesson --tags tests,auth --title "Flaky login test"
apm-git journal add "Finish the v2 migration of the billing API" --kind pending
apm-git flush --trigger session-end --session demo-1 -m "end of the first session"

export APM_GIT_NOW=2026-04-06T09:30:00
apm-git journal add "Deploys go through the staging cluster first (make deploy-staging)." \
  --kind context --tags deploy
echo '{"session_id": "demo-2", "hook_event_name": "PreCompact", "trigger": "auto", "cwd": "'"$demo"'"}' \
  | apm-git flush --hook-input -

echo "== Day 3: a new session loads the index first, then what its intent needs, under a token budget;"
echo "   day 1's lesson is in neither L1 journal: the search index recalls it (an L2 section)"
export APM_GIT_NOW=2026-04-08T09:00:00
apm-git load --intent "the login test fails at random again" --session demo-3
apm-git hit 2026-04-05-flaky-login-test
apm-git search redis
apm-git search "token refresh race"

echo "== dream: deep sleep and REM are due; journal items are promoted into the category files"
before=$(git rev-parse HEAD)
apm-git dream
echo "== apm-git diff: what the dream did, entry by entry (what a reviewer reads in a pull request)"
apm-git diff "$before..HEAD"
echo "== apm-git history of the lesson: written in a journal, promoted, hit"
apm-git history 2026-04-05-flaky-login-test

echo "== apm-git status"
apm-git status
echo "== apm-git lint --all (the checks of the pre-commit hooks, in one process)"
apm-git lint --all
echo "== apm-git log: one line per commit, from its trailers"
apm-git log
echo "== apm-git sync: share the memory through a git remote (here a bare repository beside it)"
git init -q --bare "$demo.remote.git"
git remote add origin "$demo.remote.git"
apm-git sync
echo "Demo memory repository: $demo (remote: $demo.remote.git)"
