/**
 * The keys a model mapping may hold at a given path, read from the zod schema
 * itself so "did you mean" suggestions never drift from the schema.
 */
import { closest, distance } from "fastest-levenshtein";
import type { z } from "zod";
import type { ModelPath } from "./issues";

type AnySchema = z.core.$ZodType;

export function knownKeysAt(schema: AnySchema, path: ModelPath, data: unknown): string[] {
  let candidates: AnySchema[] = [schema];
  let value: unknown = data;
  for (const part of path) {
    candidates = candidates.flatMap((candidate) => childSchemas(candidate, part, value));
    value = value !== null && typeof value === "object" ? (value as Record<string | number, unknown>)[part] : undefined;
  }
  const keys = new Set<string>();
  for (const candidate of candidates.flatMap((c) => objectsOf(c, value))) {
    for (const key of Object.keys(candidate._zod.def.shape)) keys.add(key);
  }
  return [...keys];
}

/** The accepted values of a discriminated union's key (["google", "aws"] for cloud.provider). */
export function discriminatorValuesAt(schema: AnySchema, unionPath: ModelPath, key: PropertyKey | undefined): unknown[] {
  if (typeof key !== "string") return [];
  let candidates: AnySchema[] = [schema];
  for (const part of unionPath) candidates = candidates.flatMap((candidate) => childSchemas(candidate, part, undefined));
  return candidates
    .flatMap((candidate) => objectsOf(candidate, undefined))
    .flatMap((object) => (object._zod.def.shape[key]?._zod.def as { values?: unknown[] } | undefined)?.values ?? []);
}

/** The closest known key when it is close enough to be a plausible typo. */
export function suggestKey(key: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const best = closest(key, [...known]);
  const limit = Math.max(2, Math.floor(best.length / 3));
  return distance(key, best) <= limit ? best : undefined;
}

function unwrap(schema: AnySchema): AnySchema {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
      return unwrap(def.innerType as AnySchema);
    case "pipe":
      return unwrap(def.in as AnySchema);
    default:
      return schema;
  }
}

/** Object schemas `schema` may stand for; for a discriminated union, the option the data selects. */
function objectsOf(schema: AnySchema, value: unknown): z.core.$ZodObject[] {
  const inner = unwrap(schema);
  const def = inner._zod.def as unknown as Record<string, unknown> & { type: string };
  if (def.type === "object") return [inner as z.core.$ZodObject];
  if (def.type === "union") {
    const options = (def.options as AnySchema[]).flatMap((option) => objectsOf(option, value));
    const discriminator = def.discriminator as string | undefined;
    if (discriminator && value !== null && typeof value === "object") {
      const selected = options.filter((option) => {
        const literal = option._zod.def.shape[discriminator]?._zod.def as { values?: unknown[] } | undefined;
        return literal?.values?.includes((value as Record<string, unknown>)[discriminator]);
      });
      if (selected.length > 0) return selected;
    }
    return options;
  }
  return [];
}

function childSchemas(schema: AnySchema, part: string | number, value: unknown): AnySchema[] {
  const inner = unwrap(schema);
  const def = inner._zod.def as unknown as Record<string, unknown> & { type: string };
  if (def.type === "array" && typeof part === "number") return [def.element as AnySchema];
  if (def.type === "record") return [def.valueType as AnySchema];
  return objectsOf(inner, value).flatMap((object) => {
    const child = object._zod.def.shape[String(part)];
    return child ? [child] : [];
  });
}
