/**
 * The dated price table (data/prices.json): on-demand hourly prices per cloud,
 * region and machine type, with its sources and date. Checked on load, so a bad
 * edit fails loudly instead of pricing a fleet at nothing.
 */
import { z } from "zod";
import rawTable from "../../data/prices.json";

const hourlyPrice = z.number().positive();

const priceTableSchema = z.strictObject({
  description: z.string(),
  /** Month (or day) the prices were taken from their sources. */
  as_of: z.string().regex(/^\d{4}-\d{2}(-\d{2})?$/),
  currency: z.literal("USD"),
  hours_per_month: z.number().positive(),
  sources: z.strictObject({ aws: z.string().min(1), google: z.string().min(1) }),
  spot_discount: z.strictObject({ aws: z.number().min(0).lt(1), google: z.number().min(0).lt(1) }),
  spot_discount_note: z.string(),
  hourly: z.strictObject({
    aws: z.record(z.string(), z.record(z.string(), hourlyPrice)),
    google: z.record(z.string(), z.record(z.string(), hourlyPrice)),
  }),
});

export type PriceTable = z.infer<typeof priceTableSchema>;
export type CloudName = keyof PriceTable["hourly"];

/** Where the table lives, for people reading an estimate. */
export const PRICE_TABLE_FILE = "data/prices.json";

export function parsePriceTable(value: unknown): PriceTable {
  return priceTableSchema.parse(value);
}

/** The table shipped with the toolkit. */
export const PRICE_TABLE: PriceTable = parsePriceTable(rawTable);

/** On-demand hourly price of a machine type in a region; undefined when the table does not know it. */
export function listPrice(table: PriceTable, cloud: CloudName, region: string, machineType: string): number | undefined {
  return table.hourly[cloud][region]?.[machineType];
}
