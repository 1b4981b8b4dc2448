/**
 * Which prices a cell lacks, and reading them from its cloud's price API (./aws-price-list.ts,
 * ./google-billing-catalog.ts). The machine types are the managers' and workers' of every shard, in
 * the cell's region. A type the model prices with a bare number (a negotiated price) is never asked
 * for; with `all`, the types data/prices.json or an earlier refresh priced are asked again.
 */
import type { RunnerModel } from "../../model/schema";
import { listPrice, PRICE_TABLE, type PriceTable } from "../price-table";
import { awsOnDemandPrice, type GetProducts } from "./aws-price-list";
import { googleOnDemandPrice, listComputeSkus, type CatalogSku, type GoogleGet } from "./google-billing-catalog";
import type { PriceAnswer, PriceRequest } from "./price-answer";

export function pricesToRefresh(model: RunnerModel, { all = false, table = PRICE_TABLE }: { readonly all?: boolean; readonly table?: PriceTable } = {}): PriceRequest[] {
  const cloud = model.cloud.provider;
  const region = model.cloud.region;
  const types = [...new Set(model.shards.flatMap((shard) => [shard.managers.machine_type, shard.workers.machine_type]))].sort();
  return types
    .filter((machineType) => {
      const own = model.cost.hourly_prices[machineType];
      if (typeof own === "number") return false;
      if (all) return true;
      return own === undefined && listPrice(table, cloud, region, machineType) === undefined;
    })
    .map((machineType) => ({ cloud, region, machineType }));
}

export interface PriceApis {
  /** AWS GetProducts, made on first use (loads the SDK only for an AWS cell). */
  readonly aws: () => Promise<GetProducts>;
  /** Google GET with the user's token, made on first use. */
  readonly google: () => GoogleGet;
  readonly now: Date;
}

/** Reads each request's price; the Compute Engine SKU list is read once for every Google cell. */
export async function readPrices(model: RunnerModel, requests: readonly PriceRequest[], apis: PriceApis, skuCache: { skus?: Promise<CatalogSku[]> } = {}): Promise<PriceAnswer[]> {
  const answers: PriceAnswer[] = [];
  if (requests.length === 0) return answers;
  if (model.cloud.provider === "aws") {
    const getProducts = await apis.aws();
    for (const request of requests) answers.push(await awsOnDemandPrice(getProducts, request, apis.now));
    return answers;
  }
  const get = apis.google();
  skuCache.skus ??= listComputeSkus(get);
  const skus = await skuCache.skus;
  for (const request of requests) answers.push(await googleOnDemandPrice(get, skus, request, model.cloud.zones[0], model.cloud.project, apis.now));
  return answers;
}
