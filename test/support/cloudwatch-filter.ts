/**
 * A stand-in for CloudWatch Logs' JSON metric filter patterns, for the subset the fleet uses:
 * `{ $.field = "text" }`, `!=`, `*` as a wildcard inside the quoted text, `&&`, `||` and parentheses
 * (docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html, "Using metric filters to
 * match terms in JSON log events"). A field missing from the event never matches, `!=` included.
 * Anything outside that subset throws, so a pattern the stand-in does not understand fails the test.
 */
type Node = { kind: "or" | "and"; parts: Node[] } | { kind: "compare"; field: string; negate: boolean; value: RegExp };

export function matchesJsonFilter(pattern: string, event: Record<string, unknown>): boolean {
  const body = pattern.trim();
  if (!body.startsWith("{") || !body.endsWith("}")) throw new Error(`not a JSON filter pattern: ${pattern}`);
  const tokens = body.slice(1, -1).match(/\(|\)|&&|\|\||!=|=|\$\.[A-Za-z_][A-Za-z0-9_.]*|"(?:[^"\\]|\\.)*"|\S+/g) ?? [];
  let position = 0;
  const peek = () => tokens[position];
  const take = (expected?: string) => {
    const token = tokens[position++];
    if (token === undefined || (expected !== undefined && token !== expected)) throw new Error(`filter pattern: expected ${expected ?? "a token"} at ${position} in ${pattern}`);
    return token;
  };
  const parseOr = (): Node => {
    const parts = [parseAnd()];
    while (peek() === "||") parts.push((take(), parseAnd()));
    return parts.length === 1 ? parts[0] : { kind: "or", parts };
  };
  const parseAnd = (): Node => {
    const parts = [parseAtom()];
    while (peek() === "&&") parts.push((take(), parseAtom()));
    return parts.length === 1 ? parts[0] : { kind: "and", parts };
  };
  const parseAtom = (): Node => {
    if (peek() === "(") {
      take("(");
      const inner = parseOr();
      take(")");
      return inner;
    }
    const field = take();
    if (!field.startsWith("$.")) throw new Error(`filter pattern: expected a $.field, got ${field}`);
    const operator = take();
    if (operator !== "=" && operator !== "!=") throw new Error(`filter pattern: unsupported operator ${operator}`);
    const quoted = take();
    if (!quoted.startsWith('"')) throw new Error(`filter pattern: expected a quoted value, got ${quoted}`);
    const text = JSON.parse(quoted) as string;
    const regex = new RegExp(`^${text.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`, "s");
    return { kind: "compare", field: field.slice(2), negate: operator === "!=", value: regex };
  };
  const tree = parseOr();
  if (position !== tokens.length) throw new Error(`filter pattern: unexpected ${tokens[position]} in ${pattern}`);
  const evaluate = (node: Node): boolean => {
    if (node.kind !== "compare") return node.kind === "or" ? node.parts.some(evaluate) : node.parts.every(evaluate);
    const value = node.field.split(".").reduce<unknown>((at: unknown, key: string) => (at && typeof at === "object" ? (at as Record<string, unknown>)[key] : undefined), event);
    if (value === undefined) return false;
    return node.value.test(String(value)) !== node.negate;
  };
  return evaluate(tree);
}
