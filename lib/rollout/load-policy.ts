/**
 * Reads the rollout policy once, validated as models are: every problem at once, each with the file,
 * the YAML path, line:col, what was received, what is expected and a value that would pass; exit 2
 * (UserInputError). No file: the defaults (one canary cell, then 10 %, then the rest).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isMap, isScalar, LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { describeValue, formatIssue, type ModelIssue, type ModelPath } from "../model/issues";
import { UserInputError } from "../process/errors";
import { DEFAULT_ROLLOUT_POLICY, rolloutPolicySchema, type RolloutPolicy } from "./policy-schema";

export const ROLLOUT_POLICY_FILE = "rollout.yaml";

export interface LoadedRolloutPolicy {
  /** The file read, or undefined when the repository has none and the defaults apply. */
  readonly file?: string;
  readonly policy: RolloutPolicy;
}

export class RolloutPolicyError extends UserInputError {
  constructor(readonly file: string, readonly issues: readonly ModelIssue[]) {
    super(`${file} is not a valid rollout policy (${issues.length} problem${issues.length === 1 ? "" : "s"}):\n${issues.map((issue) => `  ${formatIssue(issue)}`).join("\n")}`);
    this.name = "RolloutPolicyError";
  }
}

/** Values that pass, named in errors so the fix is one copy away. */
const EXAMPLES: Readonly<Record<string, string>> = {
  name: '"canary"',
  cells: "[cell-1]",
  count: "1",
  share: "10",
  labels: "{ environment: staging }",
  duration: '"1h"',
  max_wait: '"6h"',
  poll: '"5m"',
  margin: "0.005 (gates.failures) or \"30s\" (gates.queue)",
  jobs: "100",
  max_ratio: "2",
  confidence: "0.99",
  percentile: "90",
  reasons: "[runner_system_failure]",
  manual_promotion: "[cell-prod-1]",
};

/** The policy file of a workspace (the directory around the models directory). */
export function loadRolloutPolicy(workspace: string, file: string = join(workspace, ROLLOUT_POLICY_FILE)): LoadedRolloutPolicy {
  if (!existsSync(file)) return { policy: DEFAULT_ROLLOUT_POLICY };
  return { file, policy: parseRolloutPolicy(readFileSync(file, "utf8"), file) };
}

export function parseRolloutPolicy(text: string, file: string): RolloutPolicy {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number) => lineCounter.linePos(offset);
  if (doc.errors.length > 0) {
    const { line, col } = at(doc.errors[0].pos[0]);
    throw new RolloutPolicyError(file, [{ severity: "error", file, path: [], line, column: col, expected: "valid YAML", received: doc.errors[0].message.split("\n")[0] }]);
  }
  const data: unknown = doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null) ? {} : doc.toJS();
  const parsed = rolloutPolicySchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const locate = (path: ModelPath) => {
    for (let length = path.length; length >= 0; length -= 1) {
      const node = doc.getIn(path.slice(0, length), true) as { range?: [number, number] } | undefined;
      if (node?.range) {
        const { line, col } = at(node.range[0]);
        return { line, column: col };
      }
    }
    return { line: 1, column: 1 };
  };
  /** An unknown key is shown where the key is written, not at its value. */
  const locateKey = (path: ModelPath, key: string) => {
    const parent = doc.getIn(path, true);
    const pair = isMap(parent) ? parent.items.find((item) => isScalar(item.key) && item.key.value === key) : undefined;
    const range = (pair?.key as { range?: [number, number] } | undefined)?.range;
    if (!range) return locate([...path, key]);
    const { line, col } = at(range[0]);
    return { line, column: col };
  };
  const issues = parsed.error.issues.map((issue: z.core.$ZodIssue): ModelIssue => {
    const path = issue.path.filter((part): part is string | number => typeof part !== "symbol");
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
    const where = keys.length > 0 ? [...path, keys[0]] : path;
    // zod's words without its prefix and its own "received": the issue says what was received once.
    const words = issue.message.replace(/^(Invalid input|Too big|Too small|Invalid string|Invalid option): /, "").replace(/^expected /, "").replace(/, received \w+$/, "");
    const last = [...where].reverse().find((part): part is string => typeof part === "string") ?? "";
    const example = EXAMPLES[last];
    return {
      severity: "error",
      file,
      path: where,
      ...(keys.length > 0 ? locateKey(path, keys[0]) : locate(where)),
      expected: keys.length > 0 ? `no key ${keys.map((key) => JSON.stringify(key)).join(", ")} (known keys here: ${knownKeys(path).join(", ")})` : words,
      received: describeValue(valueAt(data, where)),
      ...(example && keys.length === 0 ? { hint: `for example ${last}: ${example}` } : {}),
    };
  });
  throw new RolloutPolicyError(file, issues);
}

/** The keys the schema knows at a path of the policy (for an unknown key's message). */
function knownKeys(path: ModelPath): string[] {
  const named = path.filter((part): part is string => typeof part === "string");
  const known: Record<string, string[]> = {
    "": ["waves", "bake", "gates", "manual_promotion"],
    waves: ["name", "cells", "count", "share", "labels"],
    bake: ["duration", "jobs", "max_wait", "poll"],
    gates: ["failures", "queue"],
    "gates.failures": ["reasons", "max_ratio", "margin", "confidence"],
    "gates.queue": ["percentile", "max_ratio", "margin"],
  };
  return known[named.join(".")] ?? [];
}

function valueAt(data: unknown, path: ModelPath): unknown {
  let value = data;
  for (const part of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string | number, unknown>)[part];
  }
  return value;
}
