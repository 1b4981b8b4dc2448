/**
 * Writes prices read from a cloud's API into a model's cost.hourly_prices as { usd, as_of, source },
 * editing the YAML document so its comments, order and other keys stay as they were.
 */
import { parseDocument, YAMLMap } from "yaml";
import type { PriceAnswer } from "./price-answer";

export function withModelPrices(text: string, answers: readonly PriceAnswer[]): string {
  const document = parseDocument(text);
  for (const answer of answers) {
    if (!answer.found) continue;
    const entry = document.createNode({ usd: answer.usd, as_of: answer.asOf, source: answer.source });
    if (entry instanceof YAMLMap) entry.flow = true;
    document.setIn(["cost", "hourly_prices", answer.machineType], entry);
  }
  return document.toString({ lineWidth: 0, flowCollectionPadding: false });
}
