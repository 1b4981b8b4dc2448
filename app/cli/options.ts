/**
 * The conventions every command follows, in one place so new commands and options inherit them:
 * - `cliCommand(name)`: a commander Command with `-V, --version` (the package version) and the shared help format.
 * - Defaults are declared on the option (`withDefault`), never written into its description, and
 *   `--help` shows them one way: a trailing "(default: <value>)", unquoted.
 * - `--model`: `modelsOption()`, repeatable: every command acts on each model named.
 */
import { Command, Option } from "commander";
import { toolkitVersion } from "../../lib/files/toolkit-version";

/** The toolkit's version, from its package.json. */
export function packageVersion(): string {
  return toolkitVersion();
}

/** A command with the shared conventions: `--version` and one help format. */
export function cliCommand(name: string): Command {
  return new Command(name).version(packageVersion(), "-V, --version", "print the version and exit").configureHelp({
    optionDescription: describeOption,
    sortOptions: false,
  });
}

/**
 * Declares an option's default so --help shows it. `value` is what the option holds when not given;
 * leave it undefined where the command resolves the default later (from the environment), and say
 * what it will be in `text`.
 */
export function withDefault<T extends Option>(option: T, text: string, value?: unknown): T {
  option.default(value, text);
  return option;
}

/** An option's help text: its description, then "(choices: a, b, default: x)" in one format for every command. */
export function describeOption(option: Option): string {
  const extra: string[] = [];
  if (option.argChoices) extra.push(`choices: ${option.argChoices.join(", ")}`);
  const text = defaultText(option);
  if (text !== undefined) extra.push(`default: ${text}`);
  if (option.envVar !== undefined) extra.push(`env: ${option.envVar}`);
  return [option.description, extra.length > 0 ? `(${extra.join(", ")})` : ""].filter(Boolean).join(" ");
}

function defaultText(option: Option): string | undefined {
  if (option.defaultValueDescription) return option.defaultValueDescription;
  const value: unknown = option.defaultValue;
  // Flags default to off, and an empty repeatable list to nothing: neither is worth a line.
  if (value === undefined || typeof value === "boolean" || (Array.isArray(value) && value.length === 0)) return undefined;
  return Array.isArray(value) ? value.join(", ") : String(value);
}

/** `-m, --model` for commands that act on each model named (repeatable). */
export function modelsOption(whenOmitted?: string): Option {
  const option = new Option("-m, --model <model>", "model path or name in the models directory (repeatable)").argParser(
    (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
  );
  return whenOmitted ? withDefault(option, whenOmitted, []) : option.default([]);
}

/** `--models-dir`, resolved later by modelsDir() so the environment is read when the command runs. */
export function modelsDirOption(): Option {
  return withDefault(new Option("--models-dir <dir>", "directory of the models"), "$RUNNER_MODELS_DIR or ./models");
}

/** `--json`: machine-readable output on stdout. */
export function jsonOption(description = "print a machine-readable report on stdout"): Option {
  return new Option("--json", description);
}

