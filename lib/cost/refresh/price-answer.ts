/**
 * What a price refresh learns about one machine type in one region: a dated price with its source,
 * or why it stays unknown. Nothing is guessed: an answer the API does not give plainly is "unknown".
 */
export interface PriceRequest {
  readonly cloud: "aws" | "google";
  readonly region: string;
  readonly machineType: string;
}

export type PriceAnswer =
  | (PriceRequest & { readonly found: true; readonly usd: number; readonly asOf: string; readonly source: string })
  | (PriceRequest & { readonly found: false; readonly reason: string });

/** YYYY-MM-DD of a moment, in UTC: the day a price was read. */
export function dayOf(moment: Date): string {
  return moment.toISOString().slice(0, 10);
}
