/**
 * cdktf writes each stack's Terraform JSON and its manifest with json-stable-stringify; the compiled
 * modules' cdktf (a synthesis thread, the cdktf app entry, the bench) gets lib/text/stable-json.ts
 * instead, the same text for a fraction of the time, as the command bundles' does
 * (build/bundle-commands.js). Imported for that effect, before cdktf loads (stacks/cell-synthesis.ts).
 */
import { stableStringifyOr, type StringifyFunction } from "../lib/text/stable-json";
import { putInCdktfModuleCache } from "./cdktf-module-cache";

/** Puts it where cdktf's `require("json-stable-stringify")` (lib/synthesize/synthesizer.js, lib/manifest.js) will look. */
export function stableJsonForCdktf(): void {
  putInCdktfModuleCache("json-stable-stringify", "synthesize", (real) => stableStringifyOr(real as () => StringifyFunction));
}

stableJsonForCdktf();
