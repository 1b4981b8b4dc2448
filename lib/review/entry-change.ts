/** One entry of a synthesized stack (a resource, output, provider...) and how a change alters it. */

/** A cdktf stack document (`cdk.tf.json`). */
export type StackJson = Record<string, unknown>;
/** "move": a resource a Terraform moved block carries to a new address (its attributes say what else changes, if anything). */
export type EntryAction = "create" | "delete" | "update" | "move";

export interface AttributeChange {
  /** Path inside the entry, e.g. `metadata.startup-script`, `network_interface[0].network`. */
  readonly path: string;
  readonly kind: "added" | "removed" | "changed";
  /** Safe, short rendering of the old value (absent when added). */
  readonly before?: string;
  /** Safe, short rendering of the new value (absent when removed). */
  readonly after?: string;
}

export interface EntryChange {
  /** `<type>.<logical_id>` for resources, `data.<type>.<id>`, `output.<name>`, `provider.<name>[.<alias>]`, `terraform`, `variable.<name>`... */
  readonly address: string;
  readonly action: EntryAction;
  /** For updates and moves: what differs. Empty for creates and deletes. */
  readonly attributes: readonly AttributeChange[];
  /** The construct path cdktf records in the resource's `//` metadata, when there is one. */
  readonly constructPath?: string;
  /** For a move: the address it moves from, and that address's construct path. */
  readonly movedFrom?: { readonly address: string; readonly constructPath?: string };
}
