/**
 * The parts of Terraform's JSON plan representation (`terraform show -json <planfile>`,
 * format_version 1.x, the same in OpenTofu) that the review reads.
 * See https://developer.hashicorp.com/terraform/internals/json-format#plan-representation
 * Fields not read here are kept as `unknown` or left out.
 */

/** Actions of one change. A replacement is ["delete","create"] or ["create","delete"]. */
export type PlanAction = "no-op" | "create" | "read" | "update" | "delete" | "forget";

/** Attribute values before and after; `*_sensitive` and `after_unknown` mirror their shape with `true` leaves. */
export interface PlanChange {
  readonly actions: readonly PlanAction[];
  readonly before: unknown;
  readonly after: unknown;
  readonly after_unknown?: unknown;
  readonly before_sensitive?: unknown;
  readonly after_sensitive?: unknown;
  /** Attribute paths that force a replacement, e.g. [["machine_type"]]. */
  readonly replace_paths?: readonly (readonly (string | number)[])[];
  readonly importing?: { readonly id?: string };
}

export interface PlanResourceChange {
  /** Full address, with index: `google_compute_instance.small-amd64_Manager0_13924B21[0]`. */
  readonly address: string;
  readonly previous_address?: string;
  readonly module_address?: string;
  readonly mode: "managed" | "data";
  readonly type: string;
  readonly name: string;
  readonly index?: number | string;
  readonly provider_name?: string;
  /** Set for a deposed object (a create-before-destroy leftover). */
  readonly deposed?: string;
  readonly change: PlanChange;
  readonly action_reason?: string;
}

export interface PlanJson {
  readonly format_version: string;
  readonly terraform_version?: string;
  readonly resource_changes?: readonly PlanResourceChange[];
  readonly resource_drift?: readonly PlanResourceChange[];
  readonly output_changes?: Readonly<Record<string, PlanChange>>;
  readonly planned_values?: unknown;
  readonly prior_state?: unknown;
  readonly configuration?: unknown;
  readonly timestamp?: string;
  readonly applyable?: boolean;
  readonly complete?: boolean;
  readonly errored?: boolean;
}

/**
 * Parses `show -json` output and checks the parts the review relies on.
 * Throws a plain Error describing the mismatch; callers wrap it with their context.
 */
export function parsePlanJson(text: string): PlanJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(value)) throw new Error("expected a JSON object");
  const version = value.format_version;
  if (typeof version !== "string" || !version.startsWith("1.")) {
    throw new Error(`expected format_version 1.x, got ${JSON.stringify(version)}`);
  }
  const changes = value.resource_changes;
  if (changes !== undefined) {
    if (!Array.isArray(changes)) throw new Error("expected resource_changes to be an array");
    changes.forEach((change, index) => {
      const ok =
        isObject(change) &&
        typeof change.address === "string" &&
        typeof change.type === "string" &&
        typeof change.name === "string" &&
        isObject(change.change) &&
        Array.isArray(change.change.actions);
      if (!ok) throw new Error(`resource_changes[${index}] lacks address, type, name or change.actions`);
    });
  }
  return value as unknown as PlanJson;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
