// apm-git snapshot for OpenClaw: the workspace's memory into apm-git's history, at the Gateway's start,
// around compaction and when a session ends. Synchronous, so the snapshot is taken before compaction goes on.
import { spawnSync } from "node:child_process";

export default function handler(event) {
  const context = event.context || {};
  const folder = process.env.APM_GIT_TRACKED || context.workspaceDir || null;
  const payload = JSON.stringify({
    hook_event_name: `${event.type}:${event.action}`,
    session_id: event.sessionKey || context.sessionId || null,
    cwd: folder,
  });
  const args = ["--agent", "openclaw", ...(folder ? ["--folder", folder] : []), "--hook-input", "-"];
  const ran = spawnSync(process.env.APM_GIT_SNAPSHOT_BIN || "apm-git-snapshot", args,
    { input: payload, encoding: "utf-8", timeout: 30_000 });
  const said = `${ran.stdout || ""}${ran.stderr || ""}`.trim();
  if (ran.error || ran.status !== 0) {
    console.error(`[apm-git-snapshot] ${event.type}:${event.action}: ${ran.error ? ran.error.message : said}`);
  } else if (said) {
    console.log(`[apm-git-snapshot] ${said}`);
  }
}
