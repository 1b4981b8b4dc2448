/**
 * PromQL syntax, checked in-process by the Prometheus project's own grammar (@prometheus-io/lezer-promql,
 * the parser of the Prometheus UI's query editor). Lezer parsers recover from errors: a query that does
 * not parse still yields a tree, with error nodes where the input broke the grammar, so the check is
 * "no error node". The grammar knows syntax, not types (`rate(metric)` without a range parses); promtool
 * checks types and evaluates rules (test/render/ops-agent-labels.test.ts).
 */
import { parser } from "@prometheus-io/lezer-promql";

/** Where each syntax error sits ("column N: <the query from there>"); empty when the query parses. */
export function promqlSyntaxErrors(query: string): string[] {
  const errors: string[] = [];
  parser.parse(query).iterate({
    enter(node) {
      if (!node.type.isError) return;
      const rest = query.slice(node.from, node.from + 30);
      errors.push(`column ${node.from + 1}: ${rest === "" ? "the query ends too soon" : JSON.stringify(rest)}`);
    },
  });
  return [...new Set(errors)];
}

export interface LabelMatcher {
  readonly key: string;
  readonly op: string;
  readonly value: string;
}

/** Every `label op "value"` matcher of the query's selectors, read from its syntax tree. */
export function labelMatchers(query: string): LabelMatcher[] {
  const matchers: LabelMatcher[] = [];
  parser.parse(query).iterate({
    enter(ref) {
      if (ref.name !== "UnquotedLabelMatcher") return;
      const text = (name: string) => {
        const child = ref.node.getChild(name);
        return child ? query.slice(child.from, child.to) : "";
      };
      // PromQL's double-quoted strings escape as Go's, which JSON reads alike for the characters in label values.
      matchers.push({ key: text("LabelName"), op: text("MatchOp"), value: JSON.parse(text("StringLiteral")) });
    },
  });
  return matchers;
}

/** The labels of the query's `by (...)` aggregations. */
export function byLabels(query: string): string[] {
  const labels: string[] = [];
  parser.parse(query).iterate({
    enter(ref) {
      if (ref.name !== "AggregateModifier" || !ref.node.getChild("By")) return;
      for (const label of ref.node.getChild("GroupingLabels")?.getChildren("LabelName") ?? []) labels.push(query.slice(label.from, label.to));
    },
  });
  return labels;
}
