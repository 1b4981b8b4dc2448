#!/usr/bin/env node
"use strict";
/**
 * docs/reference/model.md from models/schema.json: every key of a model with its type, default,
 * description and, where the example models set it, their value. `npm run docs:model-reference`
 * writes it; test/docs/model-reference.test.ts fails when the committed page is not what this
 * renders, so the reference cannot drift from the schema (which has its own test against the code).
 *
 * The schema is the one place keys are described (lib/model/runner-model.ts puts the descriptions
 * there for editors), so this renders it and adds nothing of its own but the examples.
 */
const { readFileSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const { parse } = require("yaml");

const ROOT = join(__dirname, "..");
const OUTPUT = join(ROOT, "docs", "reference", "model.md");
const EXAMPLES = ["cell-1.yaml", "cell-2.yaml"];
/** The pattern the schema gives every Go duration (lib/model/duration.ts). */
const GO_DURATION = "^([0-9]*(\\.[0-9]*)?(ns|us|\u00b5s|ms|s|m|h))+$";

/** A schema node's type in words: `string (Go duration)`, `"a" | "b"`, `list of string`, `object`. */
function typeOf(node) {
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (node.enum) return node.enum.map((value) => JSON.stringify(value)).join(" \\| ");
  const alternatives = node.anyOf ?? node.oneOf;
  if (alternatives && alternatives.every((alternative) => alternative.properties)) return `object, one of ${alternatives.length} forms`;
  if (alternatives) return alternatives.map(typeOf).join(" \\| ");
  if (node.type === "array") return `list of ${node.items ? typeOf(node.items) : "any"}`;
  if (node.type === "object" && !node.properties && node.additionalProperties) return `map of ${typeOf(node.additionalProperties)}`;
  const limits = [];
  if (node.minimum !== undefined) limits.push(`>= ${node.minimum}`);
  if (node.exclusiveMinimum !== undefined) limits.push(`> ${node.exclusiveMinimum}`);
  if (node.maximum !== undefined && node.maximum !== Number.MAX_SAFE_INTEGER) limits.push(`<= ${node.maximum}`);
  if (node.exclusiveMaximum !== undefined) limits.push(`< ${node.exclusiveMaximum}`);
  if (node.format) limits.push(node.format);
  if (node.pattern === GO_DURATION) limits.push("Go duration, such as \"20m\" or \"1h30m\"");
  const base = node.type === "integer" ? "integer" : (node.type ?? "any");
  return limits.length > 0 ? `${base} (${limits.join(", ")})` : base;
}

/**
 * The object schemas a node holds its keys in: itself, its list items', or each alternative's. An
 * alternative told apart by a constant (`provider: "aws"`, `backend: "s3"`) carries that as `when`.
 */
function objectsOf(node) {
  if (node.properties) return [{ object: node }];
  if (node.type === "array" && node.items) return objectsOf(node.items);
  return (node.anyOf ?? node.oneOf ?? []).flatMap(objectsOf).map((entry) => {
    const tag = Object.entries(entry.object.properties).find(([, child]) => child.const !== undefined);
    return tag ? { ...entry, when: { key: tag[0], value: tag[1].const } } : entry;
  });
}

/** Each key under a node, depth first: `{ path, node, required, when }`, a list's items as `path[]`. */
function keysOf(node, prefix, inherited) {
  const inList = node.type === "array" || (node.anyOf ?? node.oneOf ?? []).some((alternative) => alternative.type === "array");
  const base = inList ? `${prefix}[]` : prefix;
  return objectsOf(node).flatMap(({ object, when }) => {
    const condition = when ? { path: `${base}.${when.key}`, value: when.value } : inherited;
    return Object.entries(object.properties).flatMap(([name, child]) => {
      const path = `${base}.${name}`;
      return [{ path, node: child, required: (object.required ?? []).includes(name), when: condition }, ...keysOf(child, path, condition)];
    });
  });
}

/** The value at a key path in a parsed model (`shards[].name`: the first shard's), or undefined. */
function valueAt(model, path) {
  let value = model;
  for (const part of path.split(".")) {
    const list = part.endsWith("[]");
    value = value?.[list ? part.slice(0, -2) : part];
    if (list) value = Array.isArray(value) ? value[0] : undefined;
  }
  return value;
}

/** A value as inline YAML flow text, cut where a table cell would become unreadable. */
function inline(value) {
  const text = JSON.stringify(value).replace(/\|/g, "\\|");
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function cell(text) {
  return text.replace(/\|/g, "\\|").replace(/\n+/g, " ");
}

/** The whole page, from a schema and the example models (file name and parsed content). */
function renderModelReference(schema, examples) {
  const lines = [
    "# Model reference",
    "",
    "<!-- Generated from models/schema.json by `npm run docs:model-reference`; edit the descriptions in the schema's source (lib/model), not here. -->",
    "",
    "Every key of a runner model (`models/<cell>.yaml`), as `models/schema.json` describes it. A key in a list",
    "is written `shards[].name`. **required** keys have no default; the others take the default shown when left",
    `out (\`prepare --model <cell> --json\` shows every resolved value). The example column is the value in the`,
    `example models (${examples.map((example) => `\`models/${example.file}\``).join(", ")}) where one sets it.`,
    "",
    "A walk-through of a whole model, and the errors and warnings `prepare` gives, are in [the models guide](../guide/models.md).",
    "",
  ];
  for (const [name, node] of Object.entries(schema.properties)) {
    lines.push(`## ${name}`, "", cell(node.description ?? ""), "", "| key | type | default | description | example |", "| --- | --- | --- | --- | --- |");
    for (const key of [{ path: name, node, required: (schema.required ?? []).includes(name) }, ...keysOf(node, name, undefined)]) {
      const example = examples
        .filter((entry) => key.when === undefined || valueAt(entry.model, key.when.path) === key.when.value)
        .map((entry) => valueAt(entry.model, key.path))
        .find((value) => value !== undefined && typeof value !== "object");
      const fallback = key.required ? "**required**" : "";
      const defaults = key.node.default !== undefined ? `\`${inline(key.node.default)}\`` : fallback;
      const description = key.path === name ? "" : cell(key.node.description ?? "");
      const when = key.when ? ` (${key.when.path.split(".").pop()}: ${key.when.value})` : "";
      lines.push(`| \`${key.path}\`${when} | ${typeOf(key.node)} | ${defaults} | ${description} | ${example !== undefined ? `\`${inline(example)}\`` : ""} |`);
    }
    lines.push("");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

/** The page as the repository's schema and example models make it. */
function currentModelReference() {
  const schema = JSON.parse(readFileSync(join(ROOT, "models", "schema.json"), "utf8"));
  const examples = EXAMPLES.map((file) => ({ file, model: parse(readFileSync(join(ROOT, "models", file), "utf8")) }));
  return renderModelReference(schema, examples);
}

module.exports = { renderModelReference, currentModelReference, MODEL_REFERENCE_PATH: OUTPUT };

if (require.main === module) {
  writeFileSync(OUTPUT, currentModelReference());
  console.log(`wrote ${OUTPUT}`);
}
