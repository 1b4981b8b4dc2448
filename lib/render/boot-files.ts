/**
 * A file a VM boots with: where it goes on the VM, its mode, its content. The startup payload
 * (boot-payload.ts) writes a list of them, then runs the VM's entry script.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../files/project-root";
import { shellQuote } from "../text/shell-quote";

export interface BootFile {
  /** Absolute path on the VM. */
  readonly path: string;
  /** Octal mode, as `install -m` and `chmod` take it ("0644"). */
  readonly mode: "0600" | "0644" | "0700" | "0755";
  readonly content: string;
}

/** The boot logic's plain scripts: `scripts/manager/`, `scripts/worker/` at the toolkit's root. */
export const SCRIPTS_DIR = join(PROJECT_ROOT, "scripts");

const scriptCache = new Map<string, string>();

/** The content of `scripts/<relativePath>`, read once per process. */
export function scriptFile(relativePath: string): string {
  let content = scriptCache.get(relativePath);
  if (content === undefined) {
    content = readFileSync(join(SCRIPTS_DIR, relativePath), "utf8");
    scriptCache.set(relativePath, content);
  }
  return content;
}

/** Settings as `KEY='value'` lines a script sources: every value one single-quoted word, never expanded. */
export function renderSettingsFile(title: string, settings: Readonly<Record<string, string | number>>): string {
  const lines = Object.entries(settings).map(([key, value]) => {
    if (!/^[A-Z][A-Z0-9_]*$/.test(key)) throw new TypeError(`setting name ${JSON.stringify(key)} is not an upper-case shell variable name`);
    const text = String(value);
    // One line per setting: a line break would end the assignment early.
    if (text.includes("\n")) throw new TypeError(`setting ${key} cannot contain a line break: ${JSON.stringify(text)}`);
    return `${key}=${shellQuote(text)}`;
  });
  return [`# ${title}, rendered by runner-fleet from the cell's model. Sourced by the boot scripts.`, ...lines, ""].join("\n");
}
