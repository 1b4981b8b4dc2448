/**
 * Nothing in a config.toml is silently dropped: every key the import reads is marked here, and
 * every key it does not read (each leaf, and each MachineOptions entry) comes back as unmapped,
 * with its file, path, line:col and why. Typed reads refuse a value of the wrong type with the
 * same location (UserInputError, exit 2).
 *
 * Values are never part of what is listed: a config.toml holds tokens, cloud keys and cache
 * secrets (amazonec2-secret-key, [runners.cache.s3] SecretKey).
 */
import { UserInputError } from "../../lib/process/errors";
import { formatTomlPath, type TomlPath, type TomlSource } from "./toml-source";

export interface UnmappedKey {
  readonly file: string;
  /** `runners[0].pre_build_script`, or `runners[0].machine.MachineOptions[3] (amazonec2-vpc-id)`. */
  readonly key: string;
  readonly line: number;
  readonly column: number;
  readonly reason: string;
}

/** Why a key has no place in the model, by the key's own name; the rest get DEFAULT_REASON. */
const REASONS: Record<string, string> = {
  token: "the runner's token is never written into a model (import --adopt stores a glrt- token in the secret store)",
  pre_get_sources_script: "custom scripts have no equivalent in the model",
  pre_clone_script: "custom scripts have no equivalent in the model",
  pre_build_script: "custom scripts have no equivalent in the model",
  post_build_script: "custom scripts have no equivalent in the model",
  post_clone_script: "custom scripts have no equivalent in the model",
  environment: "job environment variables are not part of the model (set them as CI/CD variables)",
  check_interval: "runner-fleet renders its own config.toml; this global setting keeps gitlab-runner's default",
  log_level: "runner-fleet renders its own config.toml; this global setting keeps gitlab-runner's default",
  log_format: "runner-fleet renders its own config.toml; this global setting keeps gitlab-runner's default",
  listen_address: "runner-fleet serves metrics on :9252 itself (network.monitoring_cidrs decides who may scrape)",
  shutdown_timeout: "runner-fleet renders its own config.toml; this global setting keeps gitlab-runner's default",
  sentry_dsn: "no equivalent in the model",
  shell: "jobs run in Docker containers; the shell of the old manager is not used",
  use_external_addr: "the managers reach their workers on internal addresses (workers have no public address)",
  builds_dir: "runner-fleet's workers use gitlab-runner's default build directory",
  cache_dir: "runner-fleet's workers use gitlab-runner's default cache directory",
  "tls-ca-file": "a path on the old manager: give the CA bundle to the model as gitlab.ca_file",
  "tls-cert-file": "client certificates are not part of the model",
  "tls-key-file": "client certificates are not part of the model",
  id: "GitLab's runner id is found again from the token (import --adopt)",
  token_obtained_at: "bookkeeping of the old manager",
  token_expires_at: "bookkeeping of the old manager",
  MachineName: "runner-fleet names its instances itself",
  MaxGrowthRate: "the model has no growth-rate setting for its workers (docker-autoscaler)",
  OffPeakPeriods: "OffPeak settings were removed in gitlab-runner 14.0: use [[runners.machine.autoscaling]]",
  OffPeakTimezone: "OffPeak settings were removed in gitlab-runner 14.0: use [[runners.machine.autoscaling]]",
  OffPeakIdleCount: "OffPeak settings were removed in gitlab-runner 14.0: use [[runners.machine.autoscaling]]",
  OffPeakIdleTime: "OffPeak settings were removed in gitlab-runner 14.0: use [[runners.machine.autoscaling]]",
  credentials_file: "the managers authenticate with their own cloud identity (IAM role or service account)",
  config_file: "the managers authenticate with their own cloud identity (IAM role)",
  profile: "the managers authenticate with their own cloud identity (IAM role)",
  name: "runner-fleet creates and names the worker group itself",
};
export const DEFAULT_REASON = "no equivalent in the model";

/**
 * Keys runner-fleet's config.toml (templates/config.toml.hbs) does not set, with gitlab-runner's default
 * (docs.gitlab.com/runner/configuration/advanced-configuration.html): a file that sets one of them to
 * that default loses nothing, and the listing says so instead of "no equivalent".
 */
const GITLAB_RUNNER_DEFAULTS: Record<string, unknown> = {
  tls_verify: false,
  disable_cache: false,
  disable_entrypoint_overwrite: false,
  oom_kill_disable: false,
  shm_size: 0,
  MaxUploadedArchiveSize: 0,
  session_timeout: 1800,
};
const KEPT_DEFAULT = "gitlab-runner's default, which runner-fleet's config.toml keeps (it does not set the key)";

type Leaf = { readonly path: TomlPath; readonly value: unknown };

export class KeyLedger {
  private readonly read = new Set<string>();
  private readonly explained = new Map<string, string>();
  private readonly extra: UnmappedKey[] = [];

  constructor(readonly source: TomlSource) {}

  /** The value at `path`, marked as read (a table marks every key under it). */
  take(path: TomlPath): unknown {
    this.read.add(key(path));
    return valueAt(this.source.data, path);
  }

  /** The value at `path`, left unread: it is still listed as unmapped (a token is read to adopt it, never mapped). */
  peek(path: TomlPath): unknown {
    return valueAt(this.source.data, path);
  }

  /** Marks `path` unmapped with a reason of this import's own (the key's name otherwise decides). */
  explain(path: TomlPath, reason: string): void {
    this.explained.set(key(path), reason);
  }

  /** An unmapped part of a value, such as one MachineOptions entry. */
  unmappedPart(path: TomlPath, label: string, reason: string, position = this.source.locate(path)): void {
    this.extra.push({ file: this.source.file, key: `${formatTomlPath(path)} (${label})`, line: position.line, column: position.column, reason });
  }

  string(path: TomlPath): string | undefined {
    return this.typed(path, "a string", (value): value is string => typeof value === "string");
  }

  integer(path: TomlPath, min = 0): number | undefined {
    const value = this.typed(path, `a whole number >= ${min}`, (found): found is number => typeof found === "number" && Number.isInteger(found) && found >= min);
    return value;
  }

  number(path: TomlPath, min = 0): number | undefined {
    return this.typed(path, `a number >= ${min}`, (found): found is number => typeof found === "number" && Number.isFinite(found) && found >= min);
  }

  boolean(path: TomlPath): boolean | undefined {
    return this.typed(path, "true or false", (value): value is boolean => typeof value === "boolean");
  }

  strings(path: TomlPath): string[] | undefined {
    return this.typed(path, "a list of strings", (value): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string"));
  }

  /** Array-of-tables entries at `path` (not marked: their keys are read one by one). */
  tables(path: TomlPath): number {
    const value = valueAt(this.source.data, path);
    if (value === undefined) return 0;
    if (!Array.isArray(value) || !value.every(isTable)) this.refuse(path, "a list of tables ([[...]])", value);
    return (value as unknown[]).length;
  }

  /** Whether a table exists at `path` (not marked). */
  has(path: TomlPath): boolean {
    return valueAt(this.source.data, path) !== undefined;
  }

  /** A UserInputError for a value of `path` the import cannot use; `received` replaces the value's rendering (one that must not be repeated). */
  refuse(path: TomlPath, expected: string, value: unknown, received = describe(value, path)): never {
    const { line, column } = this.source.locate(path);
    throw new UserInputError(`${this.source.file}:${line}:${column}: ${formatTomlPath(path)}: expected ${expected}, received ${received}`);
  }

  /** Every key not read, each leaf on its own (and each unmapped part of a value), in file order. */
  unmapped(): UnmappedKey[] {
    const keys = leaves(this.source.data, [])
      .filter((leaf) => !this.isRead(leaf.path))
      .map((leaf): UnmappedKey => {
        const { line, column } = this.source.locate(leaf.path);
        const name = String([...leaf.path].reverse().find((part) => typeof part === "string"));
        const isDefault = name in GITLAB_RUNNER_DEFAULTS && GITLAB_RUNNER_DEFAULTS[name] === leaf.value;
        const reason = this.explainedFor(leaf.path) ?? REASONS[name] ?? (isDefault ? KEPT_DEFAULT : DEFAULT_REASON);
        return { file: this.source.file, key: formatTomlPath(leaf.path), line, column, reason };
      });
    return [...keys, ...this.extra].sort((a, b) => a.line - b.line || a.column - b.column);
  }

  private typed<T>(path: TomlPath, expected: string, accept: (value: unknown) => value is T): T | undefined {
    const value = this.take(path);
    if (value === undefined) return undefined;
    if (!accept(value)) this.refuse(path, expected, value);
    return value;
  }

  private isRead(path: TomlPath): boolean {
    for (let length = path.length; length > 0; length--) if (this.read.has(key(path.slice(0, length)))) return true;
    return false;
  }

  private explainedFor(path: TomlPath): string | undefined {
    for (let length = path.length; length > 0; length--) {
      const reason = this.explained.get(key(path.slice(0, length)));
      if (reason) return reason;
    }
    return undefined;
  }
}

function key(path: TomlPath): string {
  return path.map(String).join("\u0000");
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function valueAt(data: unknown, path: TomlPath): unknown {
  let current: unknown = data;
  for (const part of path) {
    if (typeof part === "number") current = Array.isArray(current) ? current[part] : undefined;
    else current = isTable(current) ? current[part] : undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

/** Leaf keys: scalars and arrays of scalars; arrays of tables are walked entry by entry. */
function leaves(value: unknown, path: TomlPath): Leaf[] {
  if (isTable(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return [{ path, value }];
    return entries.flatMap(([name, child]) => leaves(child, [...path, name]));
  }
  if (Array.isArray(value) && value.length > 0 && value.every(isTable)) return value.flatMap((child, index) => leaves(child, [...path, index]));
  return [{ path, value }];
}

/** A value as a message may show it: its kind, and a short text only where it cannot be a secret. */
function describe(value: unknown, path: TomlPath): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (isTable(value)) return "a table";
  if (typeof value === "string") {
    const name = String(path[path.length - 1]).toLowerCase();
    if (/token|key|secret|password|credential/.test(name)) return "a string";
    const text = JSON.stringify(value);
    return text.length > 60 ? `${text.slice(0, 57)}...` : text;
  }
  return String(value);
}
