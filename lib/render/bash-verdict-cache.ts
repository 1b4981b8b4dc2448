/**
 * `bash -n` verdicts kept between runs, so a script text that bash has already judged is not
 * judged again. The scripts a cell renders change only when its model or the templates do, and
 * each check costs a bash process per script plus a fork of the (large) Node process that starts
 * them: a good part of a dry run, and of every test that synthesizes a cell.
 *
 * A verdict is keyed by the script's text and by everything else that decides it: the bash file a
 * spawn would run (found on PATH as the spawn finds it: its device, inode, size and times, so a
 * bash replaced or upgraded is a new key) and the variables bash reads as it starts. With no bash
 * on PATH there is no key, nothing is read from here, and the check fails as it always did.
 *
 * Kept in memory for the process (cleared past 500 texts), and under $XDG_CACHE_HOME/runner-fleet/bash-n
 * (default ~/.cache), one small file per verdict, written whole by rename. A directory that cannot be
 * read or written only means checking again.
 */
import { createHash } from "node:crypto";
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";

export interface BashVerdict {
  readonly ok: boolean;
  /** What bash printed on stderr (its error, or a warning when ok). */
  readonly stderr: string;
}

/** Beyond this many verdicts the directory is emptied: scripts that embed temporary paths would otherwise grow it without end. */
const MAX_ENTRIES = 4000;

/** This process's verdicts, by bash and script text; cleared when it would hold more than VERDICTS_KEPT. */
const remembered = new Map<string, BashVerdict>();
const VERDICTS_KEPT = 500;

/** Variables bash reads as it starts that can change how it parses (shopt and set options, POSIX mode, a start-up file). */
const BASH_START_VARIABLES = ["BASHOPTS", "SHELLOPTS", "POSIXLY_CORRECT", "BASH_ENV"];

export interface BashVerdictCache {
  get(script: string): BashVerdict | undefined;
  set(script: string, verdict: BashVerdict): void;
}

/** The cache for the bash that `env`'s PATH finds, or undefined when PATH finds none. */
export function openBashVerdictCache(env: NodeJS.ProcessEnv = process.env): BashVerdictCache | undefined {
  const bash = bashIdentity(env);
  if (bash === undefined) return undefined;
  const dir = join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "runner-fleet", "bash-n");
  const entry = (script: string) => join(dir, `${createHash("sha256").update(bash).update("\0").update(script).digest("hex")}.json`);
  const remember = (script: string, verdict: BashVerdict) => {
    if (remembered.size >= VERDICTS_KEPT) remembered.clear();
    remembered.set(`${bash}\0${script}`, verdict);
  };
  return {
    get(script) {
      const known = remembered.get(`${bash}\0${script}`);
      if (known !== undefined) return known;
      try {
        const verdict = JSON.parse(readFileSync(entry(script), "utf8")) as unknown;
        if (!isVerdict(verdict)) return undefined;
        remember(script, { ok: verdict.ok, stderr: verdict.stderr });
        return { ok: verdict.ok, stderr: verdict.stderr };
      } catch {
        return undefined;
      }
    },
    set(script, verdict) {
      remember(script, verdict);
      const file = entry(script);
      const partial = `${file}.${process.pid}`;
      try {
        mkdirSync(dir, { recursive: true });
        if (readdirSync(dir).length >= MAX_ENTRIES) {
          rmSync(dir, { recursive: true, force: true });
          mkdirSync(dir, { recursive: true });
        }
        writeFileSync(partial, JSON.stringify({ ok: verdict.ok, stderr: verdict.stderr }));
        // Renamed into place: a check running at the same moment reads the whole verdict or none.
        renameSync(partial, file);
      } catch {
        try {
          rmSync(partial, { force: true });
        } catch {
          // Nothing was written where nothing can be.
        }
      }
    },
  };
}

/**
 * The bash a spawn of "bash" runs with `env` (the first executable `bash` on its PATH, as execvp
 * searches), as the file's identity plus the start-up variables; undefined when there is none.
 */
export function bashIdentity(env: NodeJS.ProcessEnv): string | undefined {
  if (env.PATH === undefined) return undefined;
  for (const dir of env.PATH.split(delimiter)) {
    // An empty entry is the working directory, for execvp as for the shell.
    const file = join(dir || ".", "bash");
    try {
      const stat = statSync(file);
      if (!stat.isFile()) continue;
      accessSync(file, constants.X_OK);
      return JSON.stringify([file, stat.dev, stat.ino, stat.size, stat.mtimeMs, stat.ctimeMs, ...BASH_START_VARIABLES.map((name) => env[name] ?? null)]);
    } catch {
      continue;
    }
  }
  return undefined;
}

function isVerdict(value: unknown): value is BashVerdict {
  return typeof value === "object" && value !== null && typeof (value as BashVerdict).ok === "boolean" && typeof (value as BashVerdict).stderr === "string";
}
