/**
 * On-demand prices of EC2 instance types from the AWS Price List Query API (GetProducts, service code
 * AmazonEC2), read with the user's AWS credentials through @aws-sdk/client-pricing, an optional peer
 * dependency loaded only here (as the secret stores' SDKs are: lib/secrets/store-sdk.ts).
 *
 * The request and answer follow the API reference (https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_pricing_GetProducts.html):
 * Filters of Type TERM_MATCH, answers paginated by NextToken, each PriceList entry a JSON document
 * { product: { attributes }, terms: { OnDemand: { <offer>: { priceDimensions: { <dim>: { unit: "Hrs",
 * pricePerUnit: { USD } } } } } }, publicationDate } ("Price List file format", https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/reading-an-offer.html).
 * The filters pick what data/prices.json holds: Linux, shared tenancy, no pre-installed software,
 * capacitystatus Used (not the reservation and dedicated-host lines that share the type's name).
 */
import { dayOf, type PriceAnswer, type PriceRequest } from "./price-answer";

export interface GetProductsInput {
  readonly ServiceCode: string;
  readonly FormatVersion: string;
  readonly Filters: ReadonlyArray<{ readonly Type: "TERM_MATCH"; readonly Field: string; readonly Value: string }>;
  readonly NextToken?: string;
  readonly MaxResults?: number;
}
export interface GetProductsOutput {
  readonly PriceList?: ReadonlyArray<string | object>;
  readonly NextToken?: string;
}
/** One GetProducts call: the SDK's in use, a stand-in in tests. */
export type GetProducts = (input: GetProductsInput) => Promise<GetProductsOutput>;

/** The SDK this file loads: an optional peer dependency (package.json), installed by teams that refresh AWS prices. */
export const PRICING_SDK = "@aws-sdk/client-pricing";

/** The Price List Query API answers from these regions' endpoints only; us-east-1 serves every region's prices. */
const PRICING_ENDPOINT_REGION = "us-east-1";

/** GetProducts through @aws-sdk/client-pricing, with the default credential chain (environment, profile, role). */
export async function sdkGetProducts(): Promise<GetProducts> {
  const sdk = await import("@aws-sdk/client-pricing");
  const client = new sdk.PricingClient({ region: PRICING_ENDPOINT_REGION });
  return async (input) => {
    const output = await client.send(new sdk.GetProductsCommand({ ...input, Filters: input.Filters.map((filter) => ({ ...filter })) }));
    return { PriceList: output.PriceList?.map((entry: unknown) => String(entry)), NextToken: output.NextToken };
  };
}

interface PriceListProduct {
  readonly product?: { readonly attributes?: Record<string, string> };
  readonly terms?: { readonly OnDemand?: Record<string, { readonly priceDimensions?: Record<string, { readonly unit?: string; readonly pricePerUnit?: Record<string, string> }> }> };
  readonly publicationDate?: string;
}

export async function awsOnDemandPrice(getProducts: GetProducts, request: PriceRequest, now: Date): Promise<PriceAnswer> {
  const filters = [
    ["instanceType", request.machineType],
    ["regionCode", request.region],
    ["operatingSystem", "Linux"],
    ["tenancy", "Shared"],
    ["preInstalledSw", "NA"],
    ["capacitystatus", "Used"],
  ].map(([Field, Value]) => ({ Type: "TERM_MATCH" as const, Field, Value }));
  const hourly = new Set<number>();
  const published = new Set<string>();
  let nextToken: string | undefined;
  do {
    const page = await getProducts({ ServiceCode: "AmazonEC2", FormatVersion: "aws_v1", Filters: filters, ...(nextToken ? { NextToken: nextToken } : {}) });
    for (const entry of page.PriceList ?? []) {
      const product = (typeof entry === "string" ? JSON.parse(entry) : entry) as PriceListProduct;
      if (product.product?.attributes?.instanceType !== request.machineType) continue;
      if (product.publicationDate) published.add(product.publicationDate.slice(0, 10));
      for (const offer of Object.values(product.terms?.OnDemand ?? {})) {
        for (const dimension of Object.values(offer.priceDimensions ?? {})) {
          const usd = Number(dimension.pricePerUnit?.USD);
          if (dimension.unit === "Hrs" && Number.isFinite(usd) && usd > 0) hourly.add(usd);
        }
      }
    }
    nextToken = page.NextToken || undefined;
  } while (nextToken);
  const what = `${request.machineType} in ${request.region}`;
  if (hourly.size === 0) return { ...request, found: false, reason: `the AWS Price List has no Linux, shared-tenancy on-demand hourly price for ${what}` };
  if (hourly.size > 1) return { ...request, found: false, reason: `the AWS Price List gives ${hourly.size} different on-demand hourly prices for ${what} (${[...hourly].join(", ")}): not one to choose` };
  const publication = published.size > 0 ? `, price list published ${[...published].sort().at(-1)}` : "";
  return {
    ...request,
    found: true,
    usd: [...hourly][0],
    asOf: dayOf(now),
    source: `AWS Price List Query API (GetProducts AmazonEC2 ${request.machineType} ${request.region}, Linux, shared tenancy, on-demand${publication})`,
  };
}
