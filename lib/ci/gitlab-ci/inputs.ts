/**
 * `spec:inputs` and `$[[ inputs.x ]]` as GitLab evaluates them when it builds a pipeline's
 * configuration: a stand-in written from GitLab's documentation (doc/ci/inputs/_index.md) and its
 * source (lib/gitlab/ci/config/interpolation/: inputs.rb, inputs/base_input.rb, inputs/string_input.rb,
 * template.rb, access.rb; lib/gitlab/ci/config/yaml/loader.rb). No gitlab-ci-local here: the
 * pipeline tests evaluate configurations in process (lib/ci/gitlab-ci/pipeline.ts).
 *
 * - A file with a header is two YAML documents: `spec:` first, the configuration after `---`.
 * - Arguments not declared in the spec are refused ("unknown input arguments"); an input without
 *   `default` is required; the default and then the given value are checked against the input's
 *   type (string unless `type` says number, boolean or array), `options` (string and number inputs
 *   only) and `regex` (string inputs only), each error as "`name` input: ...".
 * - Interpolation walks the parsed configuration, keys and values. A string that is exactly one
 *   block takes the input's value with its type; a block inside a longer string (or several blocks)
 *   is replaced by the value's text.
 * Refused, not guessed: interpolation functions (`| expand_vars`, ...) and `spec:inputs:rules`.
 */
import { parseAllDocuments } from "yaml";

export type InputValue = string | number | boolean | readonly unknown[];

export interface InputSpec {
  readonly type?: "string" | "number" | "boolean" | "array";
  readonly description?: string;
  readonly default?: InputValue;
  readonly options?: readonly (string | number)[];
  readonly regex?: string;
}

export type InputSpecs = Readonly<Record<string, InputSpec | null>>;

export interface ConfigFile {
  /** `spec:inputs` of the header, or undefined for a file without a header. */
  readonly inputs?: InputSpecs;
  readonly content: Record<string, unknown>;
}

/** GitLab refuses the configuration with these messages; the pipeline is not created. */
export class InputsError extends Error {
  constructor(readonly errors: readonly string[]) {
    super(errors.join("; "));
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Splits a configuration file into its header (`spec:`) and its content (loader.rb: header only when a second document follows). */
export function loadConfigFile(text: string, where: string): ConfigFile {
  const documents = parseAllDocuments(text);
  if (!Array.isArray(documents)) throw new Error(`${where}: empty configuration`);
  for (const document of documents) {
    if (document.errors.length > 0) throw new Error(`${where}: ${document.errors[0]?.message}`);
  }
  const values = documents.map((document) => document.toJS() as unknown);
  if (values.length > 2) throw new Error(`${where}: more than two YAML documents`);
  if (values.length === 2 && isObject(values[0]) && "spec" in values[0]) {
    const header = values[0];
    const unknownHeaderKeys = Object.keys(header).filter((key) => key !== "spec");
    if (unknownHeaderKeys.length > 0) throw new Error(`${where}: header has unknown keys ${unknownHeaderKeys.join(", ")}`);
    const spec = header.spec as Record<string, unknown> | null;
    return { inputs: (spec?.inputs ?? {}) as InputSpecs, content: (values[1] ?? {}) as Record<string, unknown> };
  }
  if (values.length === 2) throw new Error(`${where}: a second YAML document without a spec header before it`);
  return { content: (values[0] ?? {}) as Record<string, unknown> };
}

const typeName = (spec: InputSpec): NonNullable<InputSpec["type"]> => spec.type ?? "string";

function typeMatches(type: NonNullable<InputSpec["type"]>, value: unknown): boolean {
  if (type === "array") return Array.isArray(value);
  return typeof value === type;
}

/** The value of every input (given, else default), or InputsError with GitLab's messages. */
export function resolveInputs(specs: InputSpecs, args: Readonly<Record<string, unknown>> = {}): Record<string, InputValue> {
  const errors: string[] = [];
  const unknown = Object.keys(args).filter((name) => !(name in specs));
  if (unknown.length > 0) errors.push(`unknown input arguments: ${unknown.join(", ")}`);
  const values: Record<string, InputValue> = {};
  for (const [name, specOrNull] of Object.entries(specs)) {
    const spec = specOrNull ?? {};
    const type = typeName(spec);
    const error = (message: string) => errors.push(`\`${name}\` input: ${message}`);
    if ((spec as { rules?: unknown }).rules !== undefined) throw new Error(`${name}: spec:inputs:rules is not supported by this stand-in`);
    const given = args[name];
    const required = !("default" in spec);
    if (required && (given === undefined || given === null)) {
      error("required value has not been provided");
      continue;
    }
    const check = (value: unknown, isDefault: boolean) => {
      const which = isDefault ? "default" : "provided";
      if (!typeMatches(type, value)) return error(`${which} value is not a${type === "array" ? "n" : ""} ${type}`);
      if (spec.options !== undefined) {
        if (type !== "string" && type !== "number") return error("Options can only be used with string and number inputs");
        if (!spec.options.includes(value as string | number)) return error(`\`${String(value)}\` cannot be used because it is not in the list of allowed options`);
      }
      if (spec.regex !== undefined) {
        if (type !== "string") return error("RegEx validation can only be used with string inputs");
        // GitLab matches with RE2 (Gitlab::UntrustedRegexp#match?): unanchored, like RegExp#test.
        if (!new RegExp(spec.regex).test(value as string)) return error(`${which} value does not match required RegEx pattern`);
      }
      return undefined;
    };
    if (!required) check(spec.default, true);
    if (given !== undefined && given !== null) check(given, false);
    values[name] = (given ?? spec.default) as InputValue;
  }
  if (errors.length > 0) throw new InputsError(errors);
  return values;
}

/** template.rb BLOCK_REGEXP. */
const BLOCK = /\$\[\[\s*(\S.*?\S)\s*\]\]/g;

function blockValue(data: string, inputs: Readonly<Record<string, InputValue>>): InputValue {
  if (data.includes("|")) throw new Error(`$[[ ${data} ]]: interpolation functions are not supported by this stand-in`);
  const [context, name, ...rest] = data.split(".");
  if (context !== "inputs" || name === undefined || rest.length > 0) throw new InputsError([`unknown interpolation key: \`${data}\``]);
  if (!(name in inputs)) throw new InputsError([`unknown interpolation key: \`${name}\``]);
  return inputs[name] as InputValue;
}

function interpolateString(node: string, inputs: Readonly<Record<string, InputValue>>): unknown {
  const matches = [...node.matchAll(BLOCK)];
  if (matches.length === 0) return node;
  if (matches.length === 1 && matches[0]?.[0].length === node.length) return blockValue(matches[0][1] as string, inputs);
  return node.replace(BLOCK, (_block, data: string) => {
    const value = blockValue(data, inputs);
    if (Array.isArray(value)) throw new Error(`$[[ ${data} ]]: an array inside a string has no documented text form`);
    return String(value);
  });
}

/** The configuration with every `$[[ inputs.x ]]` replaced, in keys and values. */
export function interpolate(node: unknown, inputs: Readonly<Record<string, InputValue>>): unknown {
  if (typeof node === "string") return interpolateString(node, inputs);
  if (Array.isArray(node)) return node.map((item) => interpolate(item, inputs));
  if (isObject(node)) {
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [String(interpolate(key, inputs)), interpolate(value, inputs)]));
  }
  return node;
}
