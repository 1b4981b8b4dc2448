/**
 * A synthesized stack that the real `terraform` can check without its cloud provider:
 * every provider resource and data source becomes a built-in `terraform_data` stand-in
 * whose `input` holds the resource's configuration, and every reference is rewritten
 * to read the stand-in's `input`.
 *
 * Terraform then parses every string of the stack as a template (so an unescaped `${`
 * in a startup script fails), resolves every reference (a reference to an undeclared
 * resource fails), and at plan evaluates every expression with known values (an
 * attribute the input does not hold fails). Computed attributes (`self_link`, `email`,
 * `id`...) are not in the configuration: the stand-in's input gets a placeholder for
 * each one the stack reads, but only when the provider's schema (as cdktf generated
 * it) has that attribute, so a misspelt attribute still fails.
 */

/** `terraform_data.<type>__<name>` for resources, `terraform_data.data__<type>__<name>` for data sources. */
export function standInName(type: string, name: string, mode: "managed" | "data"): string {
  return `${mode === "data" ? "data__" : ""}${type}__${name}`;
}

/** Whether a provider's schema has an attribute (snake_case) on a resource or data source type. */
export type SchemaLookup = (type: string, mode: "managed" | "data", attribute: string) => boolean;

export interface StandInStack {
  /** The Terraform JSON to validate and plan. */
  readonly json: Record<string, unknown>;
  /** Addresses of the stand-ins, one per original resource or data source. */
  readonly standIns: readonly string[];
  /** `type.name.attribute` of each computed attribute that got a placeholder. */
  readonly computed: readonly string[];
}

type Blocks = Record<string, Record<string, Record<string, unknown>>>;

/** Meta-arguments that stay on the stand-in; the rest of a block is its input. */
const KEPT_META_ARGUMENTS = ["count", "for_each", "depends_on"] as const;
/** Meta-arguments dropped: they name the provider, or attributes only the provider knows. */
const DROPPED_META_ARGUMENTS = ["provider", "lifecycle", "provisioner", "connection", "//"] as const;

/** Converts every resource and data source whose type starts with `${providerName}_`. */
export function withProviderStandIns(stack: Record<string, unknown>, providerName: string, hasAttribute: SchemaLookup): StandInStack {
  const prefix = `${providerName}_`;
  const resources = (stack.resource ?? {}) as Blocks;
  const dataSources = (stack.data ?? {}) as Blocks;
  const converted = new Map<string, { type: string; name: string; mode: "managed" | "data"; block: Record<string, unknown> }>();
  for (const [mode, blocks] of [["managed", resources], ["data", dataSources]] as const) {
    for (const [type, byName] of Object.entries(blocks)) {
      if (!type.startsWith(prefix)) continue;
      for (const [name, block] of Object.entries(byName)) {
        converted.set(`${mode === "data" ? "data." : ""}${type}.${name}`, { type, name, mode, block });
      }
    }
  }

  const computed = new Map<string, Set<string>>();
  const rewrite = (text: string): string => rewriteReferences(text, converted, computed, hasAttribute);

  const standIns: Record<string, Record<string, unknown>> = {};
  for (const [address, { type, name, mode, block }] of converted) {
    const input: Record<string, unknown> = {};
    const meta: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(block)) {
      if ((KEPT_META_ARGUMENTS as readonly string[]).includes(key)) meta[key] = value;
      else if (!(DROPPED_META_ARGUMENTS as readonly string[]).includes(key)) input[key] = value;
    }
    standIns[standInName(type, name, mode)] = { ...meta, input, "//": { standInFor: address } };
  }

  const rest = Object.fromEntries(
    Object.entries(stack).filter(([key]) => !["resource", "data", "provider", "terraform", "//"].includes(key)),
  );
  const otherResources = Object.fromEntries(Object.entries(resources).filter(([type]) => !type.startsWith(prefix)));
  const otherData = Object.fromEntries(Object.entries(dataSources).filter(([type]) => !type.startsWith(prefix)));
  const providers = (stack.provider ?? {}) as Record<string, unknown>;
  const json = mapStrings(
    {
      ...rest,
      resource: { ...otherResources, terraform_data: { ...((otherResources.terraform_data as object) ?? {}), ...standIns } },
      ...(Object.keys(otherData).length > 0 ? { data: otherData } : {}),
      // The provider's configuration is checked as a local value: its expressions still count.
      locals: { ...((rest.locals as object) ?? {}), [`${providerName}_provider_configuration`]: providers[providerName] ?? null },
    },
    rewrite,
  ) as Record<string, unknown>;

  // Placeholders for the computed attributes the stack reads, added after rewriting so they stay literal.
  const terraformData = (json.resource as Record<string, Record<string, Record<string, unknown>>>).terraform_data;
  const computedList: string[] = [];
  for (const [address, attributes] of computed) {
    const { type, name, mode } = converted.get(address)!;
    const input = terraformData[standInName(type, name, mode)].input as Record<string, unknown>;
    for (const attribute of attributes) {
      if (attribute in input) continue;
      input[attribute] = `computed ${address}.${attribute}`;
      computedList.push(`${address}.${attribute}`);
    }
  }
  return { json, standIns: [...converted.values()].map(({ type, name, mode }) => `terraform_data.${standInName(type, name, mode)}`), computed: computedList };
}

/**
 * `google_x.y.attr` -> `terraform_data.google_x__y.input.attr` (also with an index, and
 * bare `google_x.y` in depends_on). References to blocks not converted are left alone,
 * so Terraform reports them.
 */
const REFERENCE = /(?<![\w.-])(data\.)?([a-z][a-z0-9]*_[a-z0-9_]+)\.([A-Za-z_][A-Za-z0-9_-]*)(\[[^\]]*\])?(?:\.([A-Za-z_][A-Za-z0-9_]*))?/g;

function rewriteReferences(
  text: string,
  converted: ReadonlyMap<string, { type: string; name: string; mode: "managed" | "data" }>,
  computed: Map<string, Set<string>>,
  hasAttribute: SchemaLookup,
): string {
  return text.replace(REFERENCE, (match: string, data: string | undefined, type: string, name: string, index: string | undefined, attribute: string | undefined) => {
    const address = `${data ? "data." : ""}${type}.${name}`;
    const target = converted.get(address);
    if (!target) return match;
    const standIn = `terraform_data.${standInName(type, name, target.mode)}${index ?? ""}`;
    if (!attribute) return standIn;
    if (!hasAttribute(type, target.mode, attribute)) {
      throw new Error(`${address}.${attribute} is read by the stack, but ${type} has no attribute "${attribute}" in the provider's schema`);
    }
    if (!computed.has(address)) computed.set(address, new Set());
    computed.get(address)!.add(attribute);
    return `${standIn}.input.${attribute}`;
  });
}

/** Applies `change` to every string and object key, except cdktf's "//" metadata. */
function mapStrings(value: unknown, change: (text: string) => string): unknown {
  if (typeof value === "string") return change(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, change));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => (key === "//" ? [key, inner] : [change(key), mapStrings(inner, change)])),
  );
}
