import { z } from "zod";
import { runnerModelSchema } from "./schema";

/**
 * The model's JSON Schema, for editors (`# yaml-language-server: $schema=./schema.json`)
 * and other tools. It describes the file as written, so defaults are optional keys.
 */
export function runnerModelJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(runnerModelSchema, { io: "input", unrepresentable: "any", target: "draft-2020-12" }) as Record<string, unknown>;
}

/** Stable text of the JSON Schema, as written to models/schema.json. */
export function runnerModelJsonSchemaText(): string {
  return `${JSON.stringify(runnerModelJsonSchema(), null, 2)}\n`;
}
