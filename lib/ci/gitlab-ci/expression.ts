/**
 * Evaluates GitLab CI/CD variable expressions (`rules:if`, `workflow:rules:if`) for tests.
 *
 * Follows GitLab's docs, "CI/CD variable expressions" (doc/ci/jobs/job_rules.md), and where the
 * docs are silent, GitLab's own evaluator (lib/gitlab/ci/pipeline/expression/):
 * - operands: `$VARIABLE` (unset is null), "string" or 'string', `null`, /regex/flags;
 * - `==` / `!=` compare values (a variable may be compared with another variable);
 * - `=~` / `!~` match with a regex literal, or with a variable holding "/regex/"; a right side
 *   that is not a regex is matched as a substring (the docs' troubleshooting note), a null right
 *   side never matches;
 * - `&&` binds tighter than `||` (Ruby precedence), parentheses group;
 * - `&&` / `||` return one of their operands as Ruby does, and the statement is true when the
 *   result is "present" (not null, false, or blank). So a bare `$VAR` is true only when the
 *   variable is set and not empty, as documented, while `$EMPTY && $OTHER` takes `$OTHER`'s value
 *   (GitLab issue 321371: Ruby's "" is truthy).
 * Regular expressions are RE2 in GitLab; here they run as JavaScript regexes, which agree on the
 * syntax the pipelines use (anchors, classes, alternation). Flags: i (case) and m (dot matches newline).
 */

export type ExpressionValue = string | null | boolean | RegExp;

type Token =
  | { kind: "variable"; name: string }
  | { kind: "string"; value: string }
  | { kind: "pattern"; source: string; flags: string }
  | { kind: "null" }
  | { kind: "operator"; op: BinaryOperator }
  | { kind: "open" }
  | { kind: "close" };

type BinaryOperator = "==" | "!=" | "=~" | "!~" | "&&" | "||";

type Node =
  | { kind: "variable"; name: string }
  | { kind: "string"; value: string }
  | { kind: "pattern"; regexp: RegExp }
  | { kind: "null" }
  | { kind: "binary"; op: BinaryOperator; left: Node; right: Node };

export class ExpressionSyntaxError extends Error {
  constructor(expression: string, reason: string) {
    super(`invalid expression syntax in ${JSON.stringify(expression)}: ${reason}`);
    this.name = "ExpressionSyntaxError";
  }
}

// The lexemes of GitLab's lexer, tried in its order. The pattern lexeme needs at least two
// characters between the slashes, which is why `/./` is "invalid expression syntax".
const LEXEMES: readonly [RegExp, (match: RegExpExecArray) => Token][] = [
  [/^\(/, () => ({ kind: "open" })],
  [/^\)/, () => ({ kind: "close" })],
  [/^\$(\w+)/, (m) => ({ kind: "variable", name: m[1] })],
  [/^"(.*?)"|^'(.*?)'/, (m) => ({ kind: "string", value: m[1] ?? m[2] })],
  [/^\/((?:[^/]|\\\/)+[^\\])\/([ismU]*)/, (m) => ({ kind: "pattern", source: m[1], flags: m[2] })],
  [/^null\b/, () => ({ kind: "null" })],
  [/^==/, () => ({ kind: "operator", op: "==" })],
  [/^=~/, () => ({ kind: "operator", op: "=~" })],
  [/^!=/, () => ({ kind: "operator", op: "!=" })],
  [/^!~/, () => ({ kind: "operator", op: "!~" })],
  [/^&&/, () => ({ kind: "operator", op: "&&" })],
  [/^\|\|/, () => ({ kind: "operator", op: "||" })],
];

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let rest = expression;
  for (;;) {
    rest = rest.replace(/^\s+/, "");
    if (rest === "") return tokens;
    const found = LEXEMES.map(([pattern, build]) => {
      const match = pattern.exec(rest);
      return match ? { match, build } : undefined;
    }).find((entry) => entry !== undefined);
    if (!found) throw new ExpressionSyntaxError(expression, `unknown lexeme at "${rest}"`);
    tokens.push(found.build(found.match));
    rest = rest.slice(found.match[0].length);
  }
}

/** Builds a regex from a pattern lexeme's text, as GitLab's Pattern lexeme does (`\/` is a slash). */
function buildRegExp(source: string, flags: string, expression: string): RegExp {
  const unsupported = flags.replace(/[im]/g, "");
  if (unsupported) throw new ExpressionSyntaxError(expression, `regex flag(s) "${unsupported}" are not supported by this evaluator`);
  // Ruby's m (dot matches newline) is JavaScript's s.
  const jsFlags = `${flags.includes("i") ? "i" : ""}${flags.includes("m") ? "s" : ""}`;
  try {
    return new RegExp(source.replace(/\\\//g, "/"), jsFlags);
  } catch (error) {
    throw new ExpressionSyntaxError(expression, `invalid regular expression /${source}/ (${(error as Error).message})`);
  }
}

// Lower binds tighter: comparisons, then &&, then || (Ruby's order).
const PRECEDENCE: Readonly<Record<BinaryOperator, number>> = { "==": 1, "!=": 1, "=~": 1, "!~": 1, "&&": 2, "||": 3 };

class Parser {
  private position = 0;
  constructor(
    private readonly tokens: readonly Token[],
    private readonly expression: string,
  ) {}

  parse(): Node {
    if (this.tokens.length === 0) throw new ExpressionSyntaxError(this.expression, "empty expression");
    const node = this.binary(3);
    if (this.position < this.tokens.length) throw new ExpressionSyntaxError(this.expression, "unexpected token after the end");
    return node;
  }

  private binary(level: number): Node {
    if (level === 0) return this.operand();
    let left = this.binary(level - 1);
    for (;;) {
      const token = this.tokens[this.position];
      if (token?.kind !== "operator" || PRECEDENCE[token.op] !== level) return left;
      this.position += 1;
      const right = this.binary(level - 1);
      left = { kind: "binary", op: token.op, left, right };
    }
  }

  private operand(): Node {
    const token = this.tokens[this.position++];
    switch (token?.kind) {
      case "variable":
        return { kind: "variable", name: token.name };
      case "string":
        return { kind: "string", value: token.value };
      case "null":
        return { kind: "null" };
      case "pattern":
        return { kind: "pattern", regexp: buildRegExp(token.source, token.flags, this.expression) };
      case "open": {
        const inner = this.binary(3);
        if (this.tokens[this.position++]?.kind !== "close") throw new ExpressionSyntaxError(this.expression, "unbalanced parentheses");
        return inner;
      }
      default:
        throw new ExpressionSyntaxError(this.expression, "expected a variable, a string, null or a regex");
    }
  }
}

export type Variables = Readonly<Record<string, string | undefined>>;

/** Ruby truthiness: only nil and false are falsy (an empty string is truthy). */
const rubyTruthy = (value: ExpressionValue): boolean => value !== null && value !== false;

/** Ruby on Rails `present?`: not nil, not false, not a blank string. */
const present = (value: ExpressionValue): boolean => rubyTruthy(value) && !(typeof value === "string" && value.trim() === "");

function evaluateNode(node: Node, variables: Variables, expression: string): ExpressionValue {
  switch (node.kind) {
    case "variable":
      return variables[node.name] ?? null;
    case "string":
      return node.value;
    case "null":
      return null;
    case "pattern":
      return node.regexp;
    case "binary": {
      const left = evaluateNode(node.left, variables, expression);
      if (node.op === "&&") return rubyTruthy(left) ? evaluateNode(node.right, variables, expression) : left;
      if (node.op === "||") return rubyTruthy(left) ? left : evaluateNode(node.right, variables, expression);
      const right = evaluateNode(node.right, variables, expression);
      switch (node.op) {
        case "==":
          return sameValue(left, right);
        case "!=":
          return !sameValue(left, right);
        case "=~":
          return right === null || right === false ? false : matches(left, right, expression);
        case "!~":
          return right === null || right === false ? true : !matches(left, right, expression);
      }
    }
  }
}

function sameValue(left: ExpressionValue, right: ExpressionValue): boolean {
  if (left instanceof RegExp || right instanceof RegExp) return String(left) === String(right);
  return left === right;
}

/** `text =~ right`: a regex, a variable holding "/regex/flags", or else a substring test. */
function matches(left: ExpressionValue, right: ExpressionValue, expression: string): boolean {
  const text = left === null || left === false ? "" : String(left);
  if (right instanceof RegExp) return right.test(text);
  const asPattern = typeof right === "string" ? /^\/((?:[^/]|\\\/)+[^\\])\/([ismU]*)$/.exec(right) : null;
  if (asPattern) return buildRegExp(asPattern[1], asPattern[2], expression).test(text);
  return String(right).includes(text);
}

/** Parses without evaluating: throws ExpressionSyntaxError for what GitLab rejects as invalid syntax. */
export function parseExpression(expression: string): void {
  new Parser(tokenize(expression), expression).parse();
}

/** Whether a `rules:if` expression is true for these variables. */
export function evaluateExpression(expression: string, variables: Variables): boolean {
  const tree = new Parser(tokenize(expression), expression).parse();
  return present(evaluateNode(tree, variables, expression));
}
