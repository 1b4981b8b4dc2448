/**
 * Checks of a parsed YAML document before it is turned into data, for files
 * written to hurt: aliases that expand without bound ("billion laughs"), aliases
 * to anchors that do not exist (also behind a merge key `<<: *undefined`), and
 * strings that are not valid Unicode (a lone surrogate such as "\ud800"), which
 * would break every tool the values reach later. Each finding has its position.
 */
import { isAlias, isPair, isScalar, isSeq, visit, type Document, type Node } from "yaml";
import type { ModelIssue, ModelPath } from "./issues";

/** Alias expansions allowed when converting to data: the yaml library's own guard, stated here. */
export const MAX_ALIAS_COUNT = 100;

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

type At = (offset: number) => { line: number; col: number };

export function documentStructureIssues(doc: Document, file: string, at: At): ModelIssue[] {
  const issues: ModelIssue[] = [];
  const issueAt = (node: Node, ancestors: readonly unknown[], expected: string, received: string): ModelIssue => {
    const { line, col } = at(node.range?.[0] ?? 0);
    return { severity: "error", file, path: modelPathOf(node, ancestors), line, column: col, expected, received };
  };
  const anchors = new Set<string>();
  visit(doc, {
    Node(_key, node, ancestors) {
      if (isAlias(node)) {
        if (!anchors.has(node.source)) {
          issues.push(issueAt(node, ancestors, "an alias to an anchor defined before it", `*${node.source}`));
        } else if (ancestors.some((ancestor) => (ancestor as Partial<Node>).anchor === node.source)) {
          issues.push(issueAt(node, ancestors, "an alias outside the node it refers to", `*${node.source} inside &${node.source} (a cycle)`));
        }
        return;
      }
      if (node.anchor) anchors.add(node.anchor);
      if (isScalar(node) && typeof node.value === "string" && LONE_SURROGATE.test(node.value)) {
        issues.push(issueAt(node, ancestors, "valid Unicode text", "a lone surrogate (an escape such as \\ud800 that is half a character)"));
      }
    },
  });
  return issues;
}

/** The keys and indices leading to `node`, from the visitor's list of its ancestors. */
function modelPathOf(node: Node, ancestors: readonly unknown[]): ModelPath {
  const path: Array<string | number> = [];
  ancestors.forEach((ancestor, index) => {
    const child = ancestors[index + 1] ?? node;
    if (isPair(ancestor) && ancestor.value === child && isScalar(ancestor.key)) path.push(String(ancestor.key.value));
    if (isSeq(ancestor)) path.push(ancestor.items.indexOf(child as Node));
  });
  return path;
}

/** Converts to data, turning the yaml library's alias guard into a located issue. */
export function documentToData(doc: Document, file: string, at: At): { data: unknown } | { issues: ModelIssue[] } {
  try {
    return { data: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    let firstAlias: number | undefined;
    visit(doc, {
      Alias(_key, node) {
        firstAlias = node.range?.[0];
        return visit.BREAK;
      },
    });
    const { line, col } = at(firstAlias ?? 0);
    return {
      issues: [
        {
          severity: "error",
          file,
          path: [],
          line,
          column: col,
          expected: `aliases that expand to at most ${MAX_ALIAS_COUNT} nodes`,
          received: "aliases that expand without bound (an alias bomb)",
        },
      ],
    };
  }
}
