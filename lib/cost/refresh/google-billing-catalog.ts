/**
 * On-demand prices of Compute Engine machine types from Google's own APIs, with the user's access token:
 * - the machine type's vCPUs and memory from the Compute Engine API (machineTypes.get,
 *   https://cloud.google.com/compute/docs/reference/rest/v1/machineTypes/get: guestCpus, memoryMb,
 *   isSharedCpu), in one of the cell's zones;
 * - the series' per-vCPU and per-GiB on-demand prices from the Cloud Billing Catalog API
 *   (services/6F81-5844-456A/skus, https://cloud.google.com/billing/v1/how-tos/catalog-api: pages of
 *   up to 5,000 SKUs with nextPageToken; each SKU's description, category.usageType, serviceRegions and
 *   pricingInfo[].pricingExpression { usageUnit, tieredRates[{ startUsageAmount, unitPrice { units, nanos } }] }).
 * A predefined type's price is vCPUs × the core price + GiB × the RAM price, how Compute Engine bills
 * them ("VM instance pricing", https://cloud.google.com/compute/vm-instance-pricing).
 *
 * Left unknown, with the reason, rather than guessed: shared-core types (e2-micro/small/medium, f1, g1:
 * billed for a fraction of a vCPU the API does not give), custom types (their own "Custom" SKUs and
 * extended-memory rules), a series with no single core and RAM SKU in the region, and tiered rates.
 * Plain HTTPS with fetch (Node's, undici): Google's client libraries would add gRPC for two GET requests.
 */
import { dayOf, type PriceAnswer, type PriceRequest } from "./price-answer";

/** Compute Engine's service in the Cloud Billing catalog. */
export const COMPUTE_ENGINE_SERVICE = "6F81-5844-456A";
const CATALOG = `https://cloudbilling.googleapis.com/v1/services/${COMPUTE_ENGINE_SERVICE}/skus`;
const COMPUTE = "https://compute.googleapis.com/compute/v1";

/** GET a Google API URL with the bearer token: the JSON body, or null on 404. Other failures throw. */
export type GoogleGet = (url: string) => Promise<unknown>;

export function fetchGoogleGet(accessToken: string, fetchImpl: typeof fetch = fetch): GoogleGet {
  return async (url) => {
    const response = await fetchImpl(url, { headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" } });
    if (response.status === 404) return null;
    if (!response.ok) {
      // The body names the missing permission or disabled API; the token is never part of it.
      const body = (await response.text()).slice(0, 300).replace(/\s+/g, " ");
      throw new Error(`${new URL(url).host} answered ${response.status} to GET ${new URL(url).pathname}: ${body}`);
    }
    return response.json();
  };
}

interface Money { readonly units?: string; readonly nanos?: number }
export interface CatalogSku {
  readonly skuId?: string;
  readonly description?: string;
  readonly category?: { readonly resourceFamily?: string; readonly usageType?: string };
  readonly serviceRegions?: readonly string[];
  readonly pricingInfo?: ReadonlyArray<{ readonly effectiveTime?: string; readonly pricingExpression?: { readonly usageUnit?: string; readonly tieredRates?: ReadonlyArray<{ readonly startUsageAmount?: number; readonly unitPrice?: Money }> } }>;
}

/** Every Compute Engine SKU, page after page until no nextPageToken. */
export async function listComputeSkus(get: GoogleGet): Promise<CatalogSku[]> {
  const skus: CatalogSku[] = [];
  let pageToken: string | undefined;
  do {
    const query = new URLSearchParams({ currencyCode: "USD", pageSize: "5000", ...(pageToken ? { pageToken } : {}) });
    const page = (await get(`${CATALOG}?${query}`)) as { skus?: CatalogSku[]; nextPageToken?: string } | null;
    if (page === null) throw new Error(`the Cloud Billing Catalog has no service ${COMPUTE_ENGINE_SERVICE} (Compute Engine)`);
    skus.push(...(page.skus ?? []));
    pageToken = page.nextPageToken || undefined;
  } while (pageToken);
  return skus;
}

/** The SKU description's series name: "n2d" is "N2D AMD Instance Core running in …", "n1" "N1 Predefined Instance Core …". */
function skuPattern(series: string, resource: "Core" | "Ram"): RegExp {
  return new RegExp(`^${series.toUpperCase()}( AMD| Intel| Arm)?( Predefined)? Instance ${resource} running in `);
}

function rateOf(sku: CatalogSku, unit: string): { usd: number; effective?: string } | string {
  const pricing = sku.pricingInfo?.at(-1);
  const expression = pricing?.pricingExpression;
  if (expression?.usageUnit !== unit) return `SKU ${sku.skuId} is priced per ${expression?.usageUnit ?? "nothing"}, not per ${unit}`;
  const rates = expression.tieredRates ?? [];
  if (rates.length !== 1) return `SKU ${sku.skuId} has ${rates.length} price tiers`;
  const price = rates[0].unitPrice;
  const usd = Number(price?.units ?? 0) + (price?.nanos ?? 0) / 1e9;
  return usd > 0 ? { usd, effective: pricing?.effectiveTime } : `SKU ${sku.skuId} has no price`;
}

export interface MachineShape { readonly guestCpus: number; readonly memoryMb: number; readonly isSharedCpu?: boolean }

export async function googleOnDemandPrice(get: GoogleGet, skus: readonly CatalogSku[], request: PriceRequest, zone: string, project: string, now: Date): Promise<PriceAnswer> {
  const unknown = (reason: string): PriceAnswer => ({ ...request, found: false, reason });
  if (/-custom-/.test(request.machineType) || request.machineType.startsWith("custom-")) return unknown("a custom machine type is billed by its series' Custom SKUs and extended-memory rules, which this refresh does not read: set its price in cost.hourly_prices");
  const shape = (await get(`${COMPUTE}/projects/${encodeURIComponent(project)}/zones/${encodeURIComponent(zone)}/machineTypes/${encodeURIComponent(request.machineType)}`)) as MachineShape | null;
  if (shape === null) return unknown(`Compute Engine has no machine type ${request.machineType} in ${zone}`);
  if (shape.isSharedCpu) return unknown("a shared-core type is billed for a fraction of a vCPU that the APIs do not give: set its price in cost.hourly_prices");
  const series = request.machineType.split("-")[0];
  const pick = (resource: "Core" | "Ram") =>
    skus.filter((sku) => sku.category?.resourceFamily === "Compute" && sku.category.usageType === "OnDemand" && (sku.serviceRegions ?? []).includes(request.region) && skuPattern(series, resource).test(sku.description ?? ""));
  const cores = pick("Core");
  const ram = pick("Ram");
  if (cores.length !== 1 || ram.length !== 1) return unknown(`the Cloud Billing Catalog has ${cores.length} on-demand ${series.toUpperCase()} core SKUs and ${ram.length} RAM SKUs in ${request.region}, not one of each`);
  const core = rateOf(cores[0], "h");
  const gib = rateOf(ram[0], "GiBy.h");
  if (typeof core === "string") return unknown(core);
  if (typeof gib === "string") return unknown(gib);
  const usd = Math.round((shape.guestCpus * core.usd + (shape.memoryMb / 1024) * gib.usd) * 1e6) / 1e6;
  const effective = [core.effective, gib.effective].filter((time): time is string => !!time).sort().at(-1);
  return {
    ...request,
    found: true,
    usd,
    asOf: dayOf(now),
    source:
      `Cloud Billing Catalog API (SKUs ${cores[0].skuId} core $${core.usd}/h × ${shape.guestCpus} vCPU + ${ram[0].skuId} RAM $${gib.usd}/GiB-h × ${shape.memoryMb / 1024} GiB, ` +
      `on-demand ${request.region}${effective ? `, effective ${effective.slice(0, 10)}` : ""}; shape from Compute Engine machineTypes.get in ${zone})`,
  };
}
