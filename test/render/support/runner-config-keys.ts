/**
 * The config.toml keys gitlab-runner knows, read from the key list extracted from
 * gitlab-runner's Go structs (fixtures/gitlab-runner-config-keys.txt, "Part 2": one
 * key path per line, `a[]` for arrays of tables, the Go type beside it).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const RUNNER_CONFIG_KEYS_FILE = join(__dirname, "..", "fixtures", "gitlab-runner-config-keys.txt");

export interface KnownRunnerConfigKeys {
  /** Every key path, e.g. `runners[].autoscaler.policy[].idle_time`. */
  readonly paths: ReadonlySet<string>;
  /** Paths whose value is a free-form map (`plugin_config`, `feature_flags`, ...): any key below them is accepted. */
  readonly freeMaps: readonly string[];
}

export function loadKnownRunnerConfigKeys(file = RUNNER_CONFIG_KEYS_FILE): KnownRunnerConfigKeys {
  const lines = readFileSync(file, "utf8").split("\n");
  const partTwo = lines.findIndex((line) => line.startsWith("# Part 2"));
  if (partTwo < 0) throw new Error(`${file} has no "# Part 2" section of key paths`);
  const paths = new Set<string>();
  const freeMaps: string[] = [];
  for (let index = partTwo + 1; index < lines.length; index++) {
    const line = lines[index];
    if (!/^[A-Za-z_]/.test(line)) continue;
    const [path, ...typeWords] = line.trim().split(/\s+/);
    // Long paths push the Go type onto the next, indented line.
    const type = typeWords.length > 0 ? typeWords.join(" ") : (lines[index + 1] ?? "").trim();
    paths.add(path);
    if (/^map\[|SettingsMap\b|^Labels\b|^DockerSysCtls\b/.test(type)) freeMaps.push(path);
  }
  return { paths, freeMaps };
}

/** Key paths of a parsed TOML document in the key list's notation. */
export function tomlKeyPaths(document: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(document).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (Array.isArray(value) && value.length > 0 && value.every(isTable)) {
      return [`${path}[]`, ...value.flatMap((item) => tomlKeyPaths(item, `${path}[]`))];
    }
    if (isTable(value)) return [path, ...tomlKeyPaths(value, path)];
    return [path];
  });
}

/** Paths of `document` that gitlab-runner would silently ignore. */
export function unknownKeyPaths(document: Record<string, unknown>, known: KnownRunnerConfigKeys): string[] {
  return tomlKeyPaths(document).filter(
    (path) => !known.paths.has(path) && !known.freeMaps.some((map) => path.startsWith(`${map}.`)),
  );
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
