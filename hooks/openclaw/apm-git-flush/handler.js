// apm-git flush for OpenClaw: before compaction and at the end of a session.
// Runs synchronously, so the commit is made before the Gateway goes on to compact.
import { spawnSync } from "node:child_process";

const TRIGGERS = {
  "session:compact:before": "pre-compact",
  "command:new": "session-end",
  "command:reset": "session-end",
  "command:stop": "session-end",
};

export default function handler(event) {
  const trigger = TRIGGERS[`${event.type}:${event.action}`];
  if (!trigger) {
    return;
  }
  const context = event.context || {};
  const repo = process.env.APM_GIT_REPO || context.workspaceDir;
  const args = [...(repo ? ["--repo", repo] : []), "flush", "--trigger", trigger];
  const session = event.sessionKey || context.sessionId;
  if (session) {
    args.push("--session", String(session));
  }
  const ran = spawnSync(process.env.APM_GIT_BIN || "apm-git", args, { encoding: "utf-8", timeout: 60_000 });
  const said = `${ran.stdout || ""}${ran.stderr || ""}`.trim();
  if (ran.error || ran.status !== 0) {
    console.error(`[apm-git-flush] ${trigger} flush failed: ${ran.error ? ran.error.message : said}`);
  } else {
    console.log(`[apm-git-flush] ${said}`);
  }
}
