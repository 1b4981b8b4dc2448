/** config.toml fixtures (test/fixtures/config-toml) written to a temp dir with tokens made at run time. */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { parse } from "yaml";
import { runImport, type ImportOptions } from "../../app/commands/import";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomText } from "../support/fake-gitlab";
import { REPO_ROOT } from "../support/cli";

export const FIXTURES_DIR = join(REPO_ROOT, "test", "fixtures", "config-toml");

/** A runner authentication token of the instance type, as GitLab shapes them (glrt-t1_...). */
export function runnerToken(): string {
  return `glrt-t1_${randomText(20)}`;
}

export interface WrittenConfig {
  readonly file: string;
  readonly dir: string;
  readonly tokens: readonly string[];
}

/** Writes `text` (RUNNER_TOKEN_n placeholders filled with fresh tokens, unless given) as <dir>/config.toml. */
export function writeConfig(text: string, options: { dir?: string; name?: string; tokens?: readonly string[]; url?: string } = {}): WrittenConfig {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "import-"));
  const tokens: string[] = [...(options.tokens ?? [])];
  const filled = text.replace(/RUNNER_TOKEN_([0-9]+)/g, (_match, n: string) => (tokens[Number(n) - 1] ??= runnerToken()));
  const withUrl = options.url ? filled.replace(/https:\/\/gitlab\.example\.com\/?/g, options.url) : filled;
  const file = join(dir, options.name ?? "config.toml");
  writeFileSync(file, withUrl);
  return { file, dir, tokens };
}

export function fixtureText(name: string): string {
  return readFileSync(join(FIXTURES_DIR, name), "utf8");
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Shard = Record<string, any>;

/**
 * `runImport` of `text` as cell-7 on AWS (unless `options` say otherwise) into `<root>/models/cell-7.yaml`,
 * and what it wrote: the model's text, the model, its shards, its first shard, the notes and the config.
 */
export async function importInto(root: string, text: string, options: Partial<ImportOptions> = {}) {
  const config = writeConfig(text, { dir: root });
  const out = join(root, "models", "cell-7.yaml");
  const result = await runImport({ configs: [config.file], cell: "cell-7", cloud: "aws", out, ...options });
  const modelText = readFileSync(out, "utf8");
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const model = parse(modelText) as Record<string, any>;
  const shards = model.shards as Shard[];
  return { result, text: modelText, model, shards, shard: shards[0], notes: result.notes.join("\n"), config };
}
