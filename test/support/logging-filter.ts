/**
 * A stand-in for Cloud Logging's query language, for the subset the fleet's log-based metric uses
 * (cloud.google.com/logging/docs/view/logging-query-language): `field = "text"` (equal), `field : "text"`
 * (has: the field's text contains it, ignoring case), NOT, AND, OR and parentheses, with the language's
 * own precedence: NOT binds tightest, then OR, then AND ("Boolean operators": `a OR b AND c` is
 * `(a OR b) AND c`). Fields are paths into the entry such as jsonPayload.MESSAGE or labels."runner_shard".
 * A missing field never matches. Anything outside that subset throws, so a filter the stand-in does not
 * understand fails the test.
 */
type Node = { kind: "or" | "and"; parts: Node[] } | { kind: "not"; part: Node } | { kind: "compare"; path: string[]; op: "=" | ":"; value: string };

export interface LogEntry {
  readonly jsonPayload?: Record<string, unknown>;
  readonly labels?: Record<string, string>;
}

export function matchesLoggingFilter(filter: string, entry: LogEntry): boolean {
  const tokens = filter.match(/\(|\)|=|:|"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|"(?:[^"\\]|\\.)*"))*|\S+/g) ?? [];
  let position = 0;
  const peek = () => tokens[position];
  const take = (expected?: string) => {
    const token = tokens[position++];
    if (token === undefined || (expected !== undefined && token !== expected)) throw new Error(`logging filter: expected ${expected ?? "a token"} at token ${position} in ${filter}`);
    return token;
  };
  const parseAnd = (): Node => {
    const parts = [parseOr()];
    while (peek() === "AND") parts.push((take(), parseOr()));
    return parts.length === 1 ? parts[0] : { kind: "and", parts };
  };
  const parseOr = (): Node => {
    const parts = [parseNot()];
    while (peek() === "OR") parts.push((take(), parseNot()));
    return parts.length === 1 ? parts[0] : { kind: "or", parts };
  };
  const parseNot = (): Node => {
    if (peek() === "NOT") return (take(), { kind: "not", part: parseNot() });
    if (peek() === "(") {
      take("(");
      const inner = parseAnd();
      take(")");
      return inner;
    }
    const field = take();
    if (!/^[A-Za-z_]/.test(field)) throw new Error(`logging filter: expected a field at token ${position} in ${filter}`);
    const op = take();
    if (op !== "=" && op !== ":") throw new Error(`logging filter: unsupported operator ${op} in ${filter}`);
    const value = take();
    if (!value.startsWith('"')) throw new Error(`logging filter: expected a quoted value after ${field}${op} in ${filter}`);
    const path = field.match(/[A-Za-z_][A-Za-z0-9_]*|"(?:[^"\\]|\\.)*"/g)!.map((part) => (part.startsWith('"') ? JSON.parse(part) : part));
    return { kind: "compare", path, op, value: JSON.parse(value) };
  };
  const tree = parseAnd();
  if (position !== tokens.length) throw new Error(`logging filter: unexpected ${tokens[position]} in ${filter}`);
  return evaluate(tree, entry);
}

function evaluate(node: Node, entry: LogEntry): boolean {
  switch (node.kind) {
    case "or":
      return node.parts.some((part) => evaluate(part, entry));
    case "and":
      return node.parts.every((part) => evaluate(part, entry));
    case "not":
      return !evaluate(node.part, entry);
    case "compare": {
      let value: unknown = entry;
      for (const key of node.path) value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
      if (typeof value !== "string") return false;
      return node.op === "=" ? value === node.value : value.toLowerCase().includes(node.value.toLowerCase());
    }
  }
}
