/**
 * `bash -n` verdicts are kept between runs (lib/render/bash-verdict-cache.ts): a script text the same
 * bash has judged is not given to bash again, and gets the same verdict, bash's words included. A
 * different bash, or none on PATH, is never answered from what another bash said.
 *
 * Bash here is a wrapper on a PATH of the test's own that logs each start and runs the real bash,
 * and the verdicts go to a cache directory of the test's own ($XDG_CACHE_HOME). Each "process" is a
 * fresh load of the module (jest.isolateModules), so what one keeps in memory does not reach the next.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as BashSyntax from "../../lib/render/bash-syntax";

const REAL_BASH = "/usr/bin/bash";
const GOOD = "#!/bin/bash\nset -eu\necho ok\n";
const BROKEN = "#!/bin/bash\nif true; then\n  echo never closed\n";

let root: string;
let log: string;
let saved: { PATH?: string; XDG_CACHE_HOME?: string };

/** A directory holding a `bash` that logs `tag` and runs the real one. */
function bashWrapper(tag: string): string {
  const dir = join(root, `bin-${tag}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "bash"), `#!/bin/sh\necho ${tag} >> "${log}"\nexec ${REAL_BASH} "$@"\n`);
  chmodSync(join(dir, "bash"), 0o755);
  return dir;
}

/** lib/render/bash-syntax.ts as a new process would load it: nothing in memory yet. */
function newProcess(): typeof BashSyntax {
  let loaded: typeof BashSyntax | undefined;
  jest.isolateModules(() => {
    loaded = require("../../lib/render/bash-syntax") as typeof BashSyntax;
  });
  return loaded!;
}

/** How many bash processes each wrapper started (the outer one and one per script checked). */
function starts(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const tag of readFileSync(log, "utf8").split("\n").filter(Boolean)) counts[tag] = (counts[tag] ?? 0) + 1;
  return counts;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "bash-verdicts-"));
  log = join(root, "starts.log");
  writeFileSync(log, "");
  saved = { PATH: process.env.PATH, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME };
  process.env.XDG_CACHE_HOME = join(root, "cache");
});

afterEach(() => {
  process.env.PATH = saved.PATH;
  if (saved.XDG_CACHE_HOME === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = saved.XDG_CACHE_HOME;
  rmSync(root, { recursive: true, force: true });
});

test("a text the same bash has judged is answered from the kept verdict in a later process, bash's own words included", () => {
  process.env.PATH = `${bashWrapper("first")}:/usr/bin:/bin`;
  const judged = newProcess().checkBashSyntax([GOOD, BROKEN]);
  expect(judged[0]).toEqual({ ok: true, stderr: "" });
  expect(judged[1].ok).toBe(false);
  expect(judged[1].stderr).toMatch(/syntax error/);
  expect(starts()).toEqual({ first: 3 });

  expect(newProcess().checkBashSyntax([BROKEN, GOOD])).toEqual([judged[1], judged[0]]);
  expect(starts()).toEqual({ first: 3 });
  expect(readdirSync(join(root, "cache", "runner-fleet", "bash-n"))).toHaveLength(2);
});

test("only the texts not judged yet go to bash, and each answer lands on its own script", () => {
  process.env.PATH = `${bashWrapper("first")}:/usr/bin:/bin`;
  newProcess().checkBashSyntax([GOOD]);
  const other = "#!/bin/bash\ncase x in\n";
  const results = newProcess().checkBashSyntax([other, GOOD, BROKEN, other]);
  expect(results.map((result) => result.ok)).toEqual([false, true, false, false]);
  // 2 for GOOD the first time, then 1 + 2 for the two new texts.
  expect(starts()).toEqual({ first: 5 });
});

test("another bash judges again: a kept verdict answers only for the bash that gave it", () => {
  process.env.PATH = `${bashWrapper("first")}:/usr/bin:/bin`;
  const check = newProcess().checkBashSyntax;
  check([GOOD]);
  // In the same process too: what it remembers is by bash as well.
  process.env.PATH = `${bashWrapper("second")}:/usr/bin:/bin`;
  expect(check([GOOD])).toEqual([{ ok: true, stderr: "" }]);
  expect(starts()).toEqual({ first: 2, second: 2 });
});

test("fails when no bash is on PATH, though a verdict for the text is kept", () => {
  process.env.PATH = `${bashWrapper("first")}:/usr/bin:/bin`;
  const { checkBashSyntax, BashUnavailableError } = newProcess();
  checkBashSyntax([GOOD]);
  process.env.PATH = join(root, "nowhere");
  expect(() => checkBashSyntax([GOOD])).toThrow(BashUnavailableError);
});

test("a kept verdict that does not read as one is judged again, and written again", () => {
  process.env.PATH = `${bashWrapper("first")}:/usr/bin:/bin`;
  newProcess().checkBashSyntax([GOOD]);
  const dir = join(root, "cache", "runner-fleet", "bash-n");
  const [entry] = readdirSync(dir);
  writeFileSync(join(dir, entry), "{ not a verdict");
  expect(newProcess().checkBashSyntax([GOOD])).toEqual([{ ok: true, stderr: "" }]);
  expect(starts()).toEqual({ first: 4 });
  expect(JSON.parse(readFileSync(join(dir, entry), "utf8"))).toEqual({ ok: true, stderr: "" });
});

test("an unwritable cache directory only means judging again in the next process", () => {
  process.env.PATH = `${bashWrapper("first")}:/usr/bin:/bin`;
  // A file where the directory should be: nothing can be kept on disk.
  writeFileSync(join(root, "cache"), "");
  const check = newProcess().checkBashSyntax;
  expect(check([GOOD, BROKEN]).map((result) => result.ok)).toEqual([true, false]);
  expect(check([GOOD]).map((result) => result.ok)).toEqual([true]);
  expect(starts()).toEqual({ first: 3 });
  expect(newProcess().checkBashSyntax([GOOD]).map((result) => result.ok)).toEqual([true]);
  expect(starts()).toEqual({ first: 5 });
});

test("bash never sources the user's ~/.bashrc, even where SHLVL is unset or 0 (cron, systemd units, some CI)", () => {
  // `bash -c` whose standard input is a socket (node's default pipe is a socket pair) and whose SHLVL is
  // under 1 takes itself for a command from rshd/sshd and sources ~/.bashrc (bash's run_startup_files).
  const home = join(root, "home");
  mkdirSync(home);
  const sourced = join(root, "bashrc-sourced");
  writeFileSync(join(home, ".bashrc"), `echo sourced >> "${sourced}"\n`);
  const saved = { HOME: process.env.HOME, SHLVL: process.env.SHLVL };
  process.env.PATH = `${bashWrapper("first")}:/usr/bin:/bin`;
  process.env.HOME = home;
  try {
    for (const level of ["0", undefined]) {
      if (level === undefined) delete process.env.SHLVL;
      else process.env.SHLVL = level;
      // A text of its own each time, so bash is asked and not the kept verdict.
      expect(newProcess().checkBashSyntax([`${GOOD}# SHLVL ${String(level)}\n`])).toEqual([{ ok: true, stderr: "" }]);
    }
    expect(starts()).toEqual({ first: 4 });
    expect(existsSync(sourced)).toBe(false);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});
