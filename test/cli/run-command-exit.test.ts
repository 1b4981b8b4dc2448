/**
 * bin/* end through app/cli/run-command.ts's main: the process exits as soon as nothing is left to do,
 * without Node's heap teardown, and nothing a command still does is cut short: its output reaches a
 * reader whole, its timers fire, and its exit code is the process's.
 */
import { spawnSync } from "node:child_process";
import { REPO_ROOT } from "../support/cli";

/** Runs `action` (a function's source) as a command's action through main, in a node of its own. */
function runMain(action: string, exitCode?: number) {
  const script = `
    const { Command } = require("commander");
    const { main } = require("./dist/app/cli/run-command.js");
    main(new Command("probe").action(${action}));
    ${exitCode === undefined ? "" : `process.on("exit", (code) => process.stderr.write("exit event " + code + "\\n"));`}
  `;
  return spawnSync(process.execPath, ["-e", script, "probe"], { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 });
}

test("output larger than a pipe holds reaches the reader whole, and the exit code is the command's", () => {
  const result = spawnSync(process.execPath, ["bin/provision", "--model", "cell-1.yaml", "--model", "cell-2.yaml", "--dry-run", "--json", "--out", "/dev/null/x"], { cwd: REPO_ROOT, encoding: "utf8" });
  // --out under a file is refused: exit 2 with the JSON error on stdout.
  expect(result.status).toBe(2);
  expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, exitCode: 2 });

  const big = runMain(`() => { process.stdout.write("x".repeat(1 << 18) + "\\n"); process.exitCode = 3; }`);
  expect(big.status).toBe(3);
  expect(big.stdout.length).toBe((1 << 18) + 1);
});

test("a timer or a child process a command leaves running is waited for, and 'exit' listeners still run", () => {
  const late = runMain(`() => { setTimeout(() => { process.stdout.write("late\\n"); process.exitCode = 4; }, 200); }`, 4);
  expect(late.stdout).toBe("late\n");
  expect(late.status).toBe(4);
  expect(late.stderr).toBe("exit event 4\n");

  const child = runMain(`() => { require("node:child_process").spawn(process.execPath, ["-e", "setTimeout(() => console.log('child done'), 200)"], { stdio: "inherit" }); }`);
  expect(child.stdout).toBe("child done\n");
  expect(child.status).toBe(0);
});
