/**
 * The project's import map, read with a real TypeScript parser (swc, the parser jest
 * already uses), so `import type`, re-exports, `require(...)` and `import(...)` in
 * types all count: a layer rule holds for types too.
 */
import { parseSync } from "@swc/core";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

export interface ImportEdge {
  /** Importing file, relative to the project root. */
  readonly from: string;
  /** Imported project file (relative to the root), or the package name for a bare specifier. */
  readonly to: string;
  readonly external: boolean;
}

/** Every `.ts` file under `folders` (relative to `root`), sorted. */
export function sourceFiles(root: string, folders: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(root, dir)).sort()) {
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (path.endsWith(".ts") && !path.endsWith(".d.ts")) files.push(path);
    }
  };
  for (const folder of folders) if (existsSync(join(root, folder))) walk(folder);
  return files;
}

/** The import edges of `files`. */
export function importEdges(root: string, files: readonly string[]): ImportEdge[] {
  return files.flatMap((file) =>
    importSpecifiers(readFileSync(join(root, file), "utf8")).map((specifier) => resolveEdge(root, file, specifier)),
  );
}

/** Module specifiers of one source file, in order of appearance. */
export function importSpecifiers(source: string): string[] {
  const program = parseSync(source, { syntax: "typescript", target: "es2022" });
  const specifiers: string[] = [];
  visit(program, (node) => {
    switch (node.type) {
      case "ImportDeclaration":
      case "ExportAllDeclaration":
      case "ExportNamedDeclaration":
        if (isStringLiteral(node.source)) specifiers.push(node.source.value);
        break;
      case "TsImportType":
        if (isStringLiteral(node.argument)) specifiers.push(node.argument.value);
        break;
      case "CallExpression": {
        const callee = node.callee as AstNode;
        const first = (node.arguments as { expression: AstNode }[])[0]?.expression;
        const loads = callee.type === "Import" || (callee.type === "Identifier" && callee.value === "require");
        if (loads && isStringLiteral(first)) specifiers.push(first.value);
        break;
      }
    }
  });
  return specifiers;
}

/**
 * The strongly connected groups of more than one file (or a file importing itself):
 * each is an import circle.
 */
export function importCircles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    if (edge.external) continue;
    next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  }
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of next.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (next.get(file) ?? []).includes(file)) circles.push(group.sort());
  };
  for (const file of next.keys()) if (!index.has(file)) connect(file);
  return circles;
}

type AstNode = { type?: string; [key: string]: unknown };

function visit(node: unknown, onNode: (node: AstNode) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) visit(child, onNode);
  } else if (node !== null && typeof node === "object") {
    const ast = node as AstNode;
    if (typeof ast.type === "string") onNode(ast);
    for (const value of Object.values(ast)) if (value !== null && typeof value === "object") visit(value, onNode);
  }
}

function isStringLiteral(node: unknown): node is { type: "StringLiteral"; value: string } {
  return (node as AstNode | undefined)?.type === "StringLiteral";
}

function resolveEdge(root: string, file: string, specifier: string): ImportEdge {
  if (!specifier.startsWith(".")) return { from: file, to: packageName(specifier), external: true };
  const base = normalize(join(dirname(file), specifier));
  const candidates = [`${base}.ts`, join(base, "index.ts"), base];
  const found = candidates.find((candidate) => existsSync(join(root, candidate)) && statSync(join(root, candidate)).isFile());
  return { from: file, to: relative(".", found ?? base), external: false };
}

/** `@scope/name/deep/path` -> `@scope/name`; `name/deep` -> `name`; `node:fs` stays. */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}
