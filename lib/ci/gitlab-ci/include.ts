/**
 * The configuration GitLab builds from a `.gitlab-ci.yml` with `include: local:` (and `inputs:`), as
 * doc/ci/yaml/includes.md and lib/gitlab/ci/config/external/processor.rb define it: each included
 * file's content (its inputs interpolated, see ./inputs.ts) is deep-merged into the
 * configuration in the order of `include`, then the including file's own keys are merged on top
 * ("Override included configuration values": hashes merge key by key, any other value, arrays
 * included, is replaced). Nested includes of an included file are resolved the same way.
 * Only `local` is resolved here, and `component` where the caller says where a component's file is
 * (the `pipeline` command: runner-fleet's own, templates/runner-fleet.yml of the installed toolkit);
 * `project`, `remote` and `template` are refused.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { interpolate, loadConfigFile, resolveInputs } from "./inputs";

type Yaml = Record<string, unknown>;

const isObject = (value: unknown): value is Yaml => typeof value === "object" && value !== null && !Array.isArray(value);

/** ActiveSupport's Hash#deep_merge: `override` wins, hashes merge recursively. */
export function deepMerge(base: Yaml, override: Yaml): Yaml {
  const merged: Yaml = { ...base };
  for (const [key, value] of Object.entries(override)) {
    merged[key] = isObject(value) && isObject(merged[key]) ? deepMerge(merged[key] as Yaml, value) : value;
  }
  return merged;
}

interface IncludeItem {
  readonly local: string;
  readonly inputs?: Yaml;
  /** The file's text, when it is not read from the repository (a component's). */
  readonly text?: string;
}

/** A component's file by its include address (`$CI_SERVER_FQDN/group/project/name@version`): its name for messages and its text. */
export type ComponentResolver = (address: string, where: string) => { readonly file: string; readonly text: string };

function includeItems(include: unknown, where: string, components?: ComponentResolver): IncludeItem[] {
  if (include === undefined) return [];
  const items = Array.isArray(include) ? include : [include];
  return items.map((item) => {
    if (typeof item === "string") {
      if (/^https?:\/\//.test(item)) throw new Error(`${where}: include of a remote file is not supported here`);
      return { local: item };
    }
    if (components && isObject(item) && typeof item.component === "string") {
      if (item.rules !== undefined) throw new Error(`${where}: include:rules is not supported here`);
      const component = components(item.component, where);
      return { local: component.file, inputs: item.inputs as Yaml | undefined, text: component.text };
    }
    if (!isObject(item) || typeof item.local !== "string") {
      throw new Error(`${where}: only include:local is supported here, got ${JSON.stringify(item)}`);
    }
    if (item.rules !== undefined) throw new Error(`${where}: include:rules is not supported here`);
    return { local: item.local, inputs: item.inputs as Yaml | undefined };
  });
}

/** The content of `file` (relative to the repository root), its includes resolved, given `args` for its inputs. */
function loadWithIncludes(root: string, file: string, args: Yaml | undefined, seen: readonly string[], text = readLocal(root, file), components?: ComponentResolver): Yaml {
  if (seen.includes(file)) throw new Error(`include loop: ${[...seen, file].join(" -> ")}`);
  const loaded = loadConfigFile(text, file);
  let content: Yaml;
  if (loaded.inputs === undefined) {
    if (args !== undefined && Object.keys(args).length > 0) {
      throw new Error(`${file}: Given inputs not defined in the \`spec\` section of the included configuration file`);
    }
    content = loaded.content;
  } else {
    content = interpolate(loaded.content, resolveInputs(loaded.inputs, args ?? {})) as Yaml;
  }
  const { include, ...own } = content;
  let merged: Yaml = {};
  for (const item of includeItems(include, file, components)) {
    merged = deepMerge(merged, loadWithIncludes(root, item.local, item.inputs, [...seen, file], item.text ?? readLocal(root, item.local), components));
  }
  return deepMerge(merged, own);
}

const readLocal = (root: string, file: string): string => readFileSync(join(root, file.replace(/^\//, "")), "utf8");

/** The merged configuration of `file` (default `.gitlab-ci.yml`) in the repository at `root`. */
export function resolvePipelineConfig(root: string, file = ".gitlab-ci.yml"): Yaml {
  return loadWithIncludes(root, file, undefined, []);
}

/** The merged configuration of a `.gitlab-ci.yml` with this text, its local includes read from `root`, its components from `components`. */
export function resolvePipelineText(root: string, text: string, components?: ComponentResolver): Yaml {
  return loadWithIncludes(root, ".gitlab-ci.yml", undefined, [], text, components);
}

/** As YAML text, for evaluatePipeline (./pipeline.ts). */
export function pipelineYaml(config: Yaml): string {
  return stringify(config, { lineWidth: 0 });
}

export function resolvePipeline(root: string, file = ".gitlab-ci.yml"): string {
  return pipelineYaml(resolvePipelineConfig(root, file));
}
