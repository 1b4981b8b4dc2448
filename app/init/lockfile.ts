/**
 * package-lock.json for a new models repository: `npm install --package-lock-only` resolves runner-fleet
 * and its dependencies from the registry (runner-fleet pins each of its direct dependencies
 * exactly; theirs resolve as npm resolves them that day, and the lockfile keeps that) without installing anything.
 */
import { spawnSync } from "node:child_process";
import { OperationalError } from "../../lib/process/errors";
import { redactSecrets } from "../../lib/text/redact";

/** The npm that runs us (npx and `npm run` set npm_execpath), else the one on PATH. */
function npmCommand(env: NodeJS.ProcessEnv): { command: string; args: string[] } {
  const execPath = env.npm_execpath;
  if (execPath && /npm-cli\.js$/.test(execPath)) return { command: process.execPath, args: [execPath] };
  return { command: process.platform === "win32" ? "npm.cmd" : "npm", args: [] };
}

export function writeLockfile(dir: string, env: NodeJS.ProcessEnv = process.env): void {
  const npm = npmCommand(env);
  const result = spawnSync(npm.command, [...npm.args, "install", "--package-lock-only", "--no-audit", "--no-fund"], { cwd: dir, env, encoding: "utf8", timeout: 300_000 });
  if (result.error || result.status !== 0) {
    const said = (result.error?.message ?? result.stderr).trim().split("\n").slice(-6).join("\n");
    throw new OperationalError(
      `the other files are written, but npm could not write package-lock.json in ${dir} (is the registry reachable, and is runner-fleet published there?):\n${redactSecrets(said)}\n` +
        "Run `npm install` there once it can reach the registry; it writes package-lock.json.",
    );
  }
}
