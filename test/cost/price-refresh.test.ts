/**
 * The price refresh (runner-fleet prices) against stand-ins of the clouds' price APIs, built from
 * their documented answers:
 * - AWS Price List Query API, GetProducts (https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_pricing_GetProducts.html):
 *   TERM_MATCH filters, PriceList entries as JSON text in the price list format
 *   (https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/reading-an-offer.html), NextToken pages;
 * - Cloud Billing Catalog API, services/6F81-5844-456A/skus (https://cloud.google.com/billing/v1/how-tos/catalog-api):
 *   skus[] with description, category, serviceRegions, pricingInfo[].pricingExpression.tieredRates[].unitPrice
 *   { units, nanos }, nextPageToken pages; Compute Engine machineTypes.get
 *   (https://cloud.google.com/compute/docs/reference/rest/v1/machineTypes/get): guestCpus, memoryMb, isSharedCpu.
 * The figures in the stand-ins are test data, not quotes: each expected price is worked out here from them.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { estimateCellCost, pricesUsed } from "../../lib/cost/estimate";
import { PRICE_TABLE } from "../../lib/cost/price-table";
import { awsOnDemandPrice, type GetProducts, type GetProductsInput } from "../../lib/cost/refresh/aws-price-list";
import { COMPUTE_ENGINE_SERVICE, googleOnDemandPrice, listComputeSkus, type CatalogSku, type GoogleGet } from "../../lib/cost/refresh/google-billing-catalog";
import { pricesToRefresh } from "../../lib/cost/refresh/refresh-prices";
import { withModelPrices } from "../../lib/cost/refresh/write-model-prices";
import { parseModel } from "../../lib/model/load";
import { costText } from "../../lib/review/render-cost";
import { formatPricesReport, requirePricingSdk, runPrices } from "../../app/commands/prices";
import { OperationalError, UserInputError } from "../../lib/process/errors";
import { MODELS_DIR, modelWith } from "../support/models";

const NOW = new Date("2026-11-29T08:00:00Z");

// ---- AWS stand-in ------------------------------------------------------------------------------

interface Ec2Product {
  readonly attributes: Record<string, string>;
  readonly usd: string;
}

function ec2Product(instanceType: string, regionCode: string, usd: string, overrides: Record<string, string> = {}): Ec2Product {
  return { attributes: { instanceType, regionCode, operatingSystem: "Linux", tenancy: "Shared", preInstalledSw: "NA", capacitystatus: "Used", ...overrides }, usd };
}

/** Price list format: one product with its OnDemand offer and one hourly price dimension. */
function priceListEntry(product: Ec2Product, sku: string): string {
  return JSON.stringify({
    product: { productFamily: "Compute Instance", attributes: product.attributes, sku },
    serviceCode: "AmazonEC2",
    terms: {
      OnDemand: {
        [`${sku}.JRTCKXETXF`]: {
          priceDimensions: { [`${sku}.JRTCKXETXF.6YS6EN2CT7`]: { unit: "Hrs", pricePerUnit: { USD: product.usd }, description: "On Demand Linux" } },
          sku,
          effectiveDate: "2026-11-01T00:00:00Z",
          offerTermCode: "JRTCKXETXF",
        },
      },
    },
    version: "20261120000000",
    publicationDate: "2026-11-20T18:40:12Z",
  });
}

/** GetProducts: every TERM_MATCH filter must match the product's attribute; pages of `pageSize`, NextToken the next offset. */
function awsStandIn(products: readonly Ec2Product[], pageSize = 1): { getProducts: GetProducts; calls: GetProductsInput[] } {
  const calls: GetProductsInput[] = [];
  const getProducts: GetProducts = async (input) => {
    calls.push(input);
    expect(input.ServiceCode).toBe("AmazonEC2");
    const matching = products.filter((product) => input.Filters.every((filter) => product.attributes[filter.Field] === filter.Value));
    const offset = input.NextToken === undefined ? 0 : Number(input.NextToken.replace("page-", ""));
    const page = matching.slice(offset, offset + pageSize).map((product, index) => priceListEntry(product, `SKU${offset + index}`));
    return { PriceList: page, ...(offset + pageSize < matching.length ? { NextToken: `page-${offset + pageSize}` } : {}) };
  };
  return { getProducts, calls };
}

describe("AWS prices from the Price List Query API", () => {
  const products = [
    ec2Product("c7i.4xlarge", "eu-central-1", "0.8000000000"),
    // The same type's other lines, which the filters leave out: Windows, a dedicated host, an unused reservation.
    ec2Product("c7i.4xlarge", "eu-central-1", "1.5360000000", { operatingSystem: "Windows" }),
    ec2Product("c7i.4xlarge", "eu-central-1", "0.8800000000", { tenancy: "Dedicated" }),
    ec2Product("c7i.4xlarge", "eu-central-1", "0.8000000000", { capacitystatus: "UnusedCapacityReservation" }),
    ec2Product("c7i.4xlarge", "us-east-1", "0.7140000000"),
  ];

  it("reads the Linux, shared, on-demand hourly price with its date and source, over NextToken pages", async () => {
    // Two products match (the same price on two SKUs, as the price list has for some types): two pages.
    const { getProducts, calls } = awsStandIn([...products, ec2Product("c7i.4xlarge", "eu-central-1", "0.8000000000")]);
    const answer = await awsOnDemandPrice(getProducts, { cloud: "aws", region: "eu-central-1", machineType: "c7i.4xlarge" }, NOW);
    expect(answer).toEqual({ cloud: "aws", region: "eu-central-1", machineType: "c7i.4xlarge", found: true, usd: 0.8, asOf: "2026-11-29", source: expect.stringContaining("AWS Price List Query API") });
    expect(answer.found && answer.source).toContain("price list published 2026-11-20");
    expect(calls.map((call) => call.NextToken)).toEqual([undefined, "page-1"]);
    expect(Object.fromEntries(calls[0].Filters.map((filter) => [filter.Field, filter.Value]))).toEqual({
      instanceType: "c7i.4xlarge",
      regionCode: "eu-central-1",
      operatingSystem: "Linux",
      tenancy: "Shared",
      preInstalledSw: "NA",
      capacitystatus: "Used",
    });
  });

  it("fails when the type is unknown to the price list: unknown, with the reason, never 0", async () => {
    const { getProducts } = awsStandIn(products);
    const answer = await awsOnDemandPrice(getProducts, { cloud: "aws", region: "eu-central-1", machineType: "c7i.5xlarge" }, NOW);
    expect(answer).toEqual({ cloud: "aws", region: "eu-central-1", machineType: "c7i.5xlarge", found: false, reason: expect.stringContaining("no Linux, shared-tenancy on-demand hourly price for c7i.5xlarge in eu-central-1") });
  });

  it("fails when the filtered products disagree on the price: not one to choose", async () => {
    const { getProducts } = awsStandIn([ec2Product("m7i.large", "eu-central-1", "0.1"), ec2Product("m7i.large", "eu-central-1", "0.2")]);
    const answer = await awsOnDemandPrice(getProducts, { cloud: "aws", region: "eu-central-1", machineType: "m7i.large" }, NOW);
    expect(answer.found).toBe(false);
    expect(!answer.found && answer.reason).toContain("2 different on-demand hourly prices");
  });
});

// ---- Google stand-in ---------------------------------------------------------------------------

function sku(skuId: string, description: string, regions: readonly string[], unit: "h" | "GiBy.h", units: string, nanos: number, usageType = "OnDemand"): CatalogSku {
  return {
    skuId,
    description,
    category: { resourceFamily: "Compute", usageType },
    serviceRegions: regions,
    pricingInfo: [{ effectiveTime: "2026-11-27T08:00:00Z", pricingExpression: { usageUnit: unit, tieredRates: [{ startUsageAmount: 0, unitPrice: { units, nanos } }] } }],
  };
}

const SKUS: readonly CatalogSku[] = [
  sku("AAAA-0001", "C3D Instance Core running in Frankfurt", ["europe-west3"], "h", "0", 40_000_000),
  sku("AAAA-0002", "C3D Instance Core running in Frankfurt", ["europe-west3"], "h", "0", 9_000_000, "Preemptible"),
  sku("AAAA-0003", "Commitment v1: C3D Cpu in Frankfurt for 1 Year", ["europe-west3"], "h", "0", 25_000_000, "Commit1Yr"),
  sku("AAAA-0004", "E2 Instance Core running in Frankfurt", ["europe-west3"], "h", "0", 25_000_000),
  sku("AAAA-0005", "E2 Instance Ram running in Frankfurt", ["europe-west3"], "GiBy.h", "0", 3_400_000),
  sku("AAAA-0006", "N2D AMD Custom Instance Core running in Frankfurt", ["europe-west3"], "h", "0", 30_000_000),
  // On the second page: the C3D RAM price.
  sku("AAAA-0007", "C3D Instance Ram running in Frankfurt", ["europe-west3"], "GiBy.h", "0", 5_000_000),
  sku("AAAA-0008", "C3D Instance Ram running in Netherlands", ["europe-west4"], "GiBy.h", "0", 4_800_000),
];

const SHAPES: Record<string, { guestCpus: number; memoryMb: number; isSharedCpu: boolean }> = {
  "c3d-standard-16": { guestCpus: 16, memoryMb: 65_536, isSharedCpu: false },
  "e2-standard-4": { guestCpus: 4, memoryMb: 16_384, isSharedCpu: false },
  "e2-medium": { guestCpus: 2, memoryMb: 4_096, isSharedCpu: true },
};

function googleStandIn(pageSize = 6): { get: GoogleGet; urls: string[] } {
  const urls: string[] = [];
  const get: GoogleGet = async (url) => {
    urls.push(url);
    const parsed = new URL(url);
    if (parsed.host === "cloudbilling.googleapis.com") {
      expect(parsed.pathname).toBe(`/v1/services/${COMPUTE_ENGINE_SERVICE}/skus`);
      const offset = Number(parsed.searchParams.get("pageToken") ?? 0);
      const page = SKUS.slice(offset, offset + pageSize);
      return { skus: page, ...(offset + pageSize < SKUS.length ? { nextPageToken: String(offset + pageSize) } : {}) };
    }
    const match = /^\/compute\/v1\/projects\/([^/]+)\/zones\/([^/]+)\/machineTypes\/([^/]+)$/.exec(parsed.pathname);
    if (!match) throw new Error(`stand-in: no route for ${url}`);
    const shape = SHAPES[match[3]];
    return shape ? { kind: "compute#machineType", name: match[3], zone: match[2], ...shape } : null;
  };
  return { get, urls };
}

describe("Google Cloud prices from the Cloud Billing Catalog API", () => {
  const ask = async (machineType: string) => {
    const { get, urls } = googleStandIn();
    const skus = await listComputeSkus(get);
    const answer = await googleOnDemandPrice(get, skus, { cloud: "google", region: "europe-west3", machineType }, "europe-west3-a", "acme-runners", NOW);
    return { answer, urls };
  };

  it("prices a predefined type as vCPUs × the on-demand core SKU + GiB × the RAM SKU, over nextPageToken pages", async () => {
    const { answer, urls } = await ask("c3d-standard-16");
    // 16 × 0.04 + 64 × 0.005: the spot and commitment SKUs of the series are not read.
    expect(answer).toEqual({ cloud: "google", region: "europe-west3", machineType: "c3d-standard-16", found: true, usd: 0.96, asOf: "2026-11-29", source: expect.stringContaining("AAAA-0001") });
    expect(answer.found && answer.source).toContain("AAAA-0007");
    expect(answer.found && answer.source).toContain("effective 2026-11-27");
    expect(urls.filter((url) => url.includes("cloudbilling")).map((url) => new URL(url).searchParams.get("pageToken"))).toEqual([null, "6"]);
    expect(urls.at(-1)).toBe("https://compute.googleapis.com/compute/v1/projects/acme-runners/zones/europe-west3-a/machineTypes/c3d-standard-16");
  });

  it("prices e2 from the E2 SKUs: 4 × 0.025 + 16 × 0.0034", async () => {
    const { answer } = await ask("e2-standard-4");
    expect(answer.found && answer.usd).toBe(0.1544);
  });

  it("fails when the type does not exist in the zone (machineTypes.get 404): unknown", async () => {
    const { answer } = await ask("c3d-standard-17");
    expect(answer).toEqual(expect.objectContaining({ found: false, reason: "Compute Engine has no machine type c3d-standard-17 in europe-west3-a" }));
  });

  it("fails when the type is shared-core or custom: unknown, with the way to price it", async () => {
    expect((await ask("e2-medium")).answer).toEqual(expect.objectContaining({ found: false, reason: expect.stringContaining("shared-core") }));
    expect((await ask("n2d-custom-4-8192")).answer).toEqual(expect.objectContaining({ found: false, reason: expect.stringContaining("custom machine type") }));
  });

  it("fails when the series has no single core and RAM SKU in the region", async () => {
    const { get } = googleStandIn();
    SHAPES["n4-standard-8"] = { guestCpus: 8, memoryMb: 32_768, isSharedCpu: false };
    const answer = await googleOnDemandPrice(get, await listComputeSkus(get), { cloud: "google", region: "europe-west3", machineType: "n4-standard-8" }, "europe-west3-a", "acme-runners", NOW);
    expect(answer).toEqual(expect.objectContaining({ found: false, reason: "the Cloud Billing Catalog has 0 on-demand N4 core SKUs and 0 RAM SKUs in europe-west3, not one of each" }));
  });
});

// ---- what is asked, what is written, what the estimate then says ----------------------------------

describe("filling a model's prices", () => {
  it("asks only for the types nobody priced; a bare number (the team's own price) is never asked for, even with all", () => {
    const model = modelWith("cell-2", (m) => {
      m.cloud.region = "eu-central-1";
      m.cost.hourly_prices = { "t3.medium": 0.05 };
    });
    const types = [...new Set(model.shards.flatMap((shard) => [shard.managers.machine_type, shard.workers.machine_type]))].filter((type) => type !== "t3.medium");
    expect(pricesToRefresh(model).map((request) => request.machineType)).toEqual(types.sort());
    expect(pricesToRefresh(modelWith("cell-2", () => {}))).toEqual([]);
    expect(pricesToRefresh(modelWith("cell-2", (m) => (m.cost.hourly_prices = { "t3.medium": 0.05 })), { all: true }).map((request) => request.machineType)).not.toContain("t3.medium");
  });

  it("writes dated entries into cost.hourly_prices, keeping the file's comments, and the estimate shows their date and source", () => {
    const file = join(MODELS_DIR, "cell-2.yaml");
    const text = readFileSync(file, "utf8").replace(/eu-west-1/g, "eu-central-1");
    const written = withModelPrices(text, [
      { cloud: "aws", region: "eu-central-1", machineType: "m7i.large", found: true, usd: 0.1, asOf: "2026-11-29", source: "AWS Price List Query API (stand-in)" },
      { cloud: "aws", region: "eu-central-1", machineType: "m9.huge", found: false, reason: "no price" },
    ]);
    expect(written).toContain("# Cell 2 on AWS");
    expect(written).toContain('m7i.large: {usd: 0.1, as_of: 2026-11-29, source: AWS Price List Query API (stand-in)}');
    expect(written).not.toContain("m9.huge");
    const cost = estimateCellCost(parseModel(written, file).model);
    const workers = cost.shards[0].workers;
    expect([workers.onDemandHourly, workers.asOf, workers.from]).toEqual([0.1, "2026-11-29", "AWS Price List Query API (stand-in)"]);
    expect(pricesUsed(cost)).toEqual(["m7i.large from AWS Price List Query API (stand-in), as of 2026-11-29"]);
    // The managers' t3.medium is in no table for eu-central-1: unknown, never $0.
    const text2 = costText(cost).join("\n");
    expect(text2).toMatch(/unpriced: t3\.medium \(managers of shard/);
    expect(text2).not.toContain("$0.00");
    expect(text2).toContain("prices: m7i.large from AWS Price List Query API (stand-in), as of 2026-11-29");
  });

  it("prices writes the cell's unpriced types with --write and exits 1 for the one left unknown", async () => {
    const dir = mkdtempSync(join(tmpdir(), "prices-"));
    copyFileSync(join(MODELS_DIR, "schema.json"), join(dir, "schema.json"));
    const file = join(dir, "cell-2.yaml");
    writeFileSync(file, readFileSync(join(MODELS_DIR, "cell-2.yaml"), "utf8").replace(/eu-west-1/g, "eu-central-1"));
    const { getProducts } = awsStandIn([ec2Product("m7i.large", "eu-central-1", "0.1150000000")]);
    const result = await runPrices({ models: [file], all: false, write: true, googleTokenEnv: "GOOGLE_OAUTH_ACCESS_TOKEN", apis: { now: NOW, aws: async () => getProducts, google: () => fail("no Google call for an AWS cell") } });
    expect(result.exitCode).toBe(1);
    const report = formatPricesReport(result, { write: true });
    expect(report).toContain("m7i.large: $0.115/h as of 2026-11-29 from AWS Price List Query API");
    expect(report).toMatch(/t3\.medium: unknown: the AWS Price List has no Linux, shared-tenancy on-demand hourly price/);
    expect(readFileSync(file, "utf8")).toMatch(/m7i\.large: \{usd: 0\.115, as_of: 2026-11-29, source: "AWS Price List Query API/);
  });

  it("fails when --google-token-env is not a variable name (exit 2), before any model is read", async () => {
    await expect(runPrices({ models: ["nowhere"], all: false, write: false, googleTokenEnv: "$(gcloud)" })).rejects.toThrow(UserInputError);
  });
});

describe("a price API that fails", () => {
  it("fails with the cell and the API's words (exit 1), not a stack trace, and writes nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "prices-"));
    const file = join(dir, "cell-1.yaml");
    const original = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8").replace(/europe-west4/g, "europe-west3");
    writeFileSync(file, original);
    const denied = async () => {
      throw new Error("cloudbilling.googleapis.com answered 403 to GET /v1/services/6F81-5844-456A/skus: Cloud Billing API has not been used in project 1 before or it is disabled");
    };
    const run = runPrices({ models: [file], all: false, write: true, googleTokenEnv: "GOOGLE_OAUTH_ACCESS_TOKEN", apis: { now: NOW, aws: () => fail("no AWS call"), google: () => denied } });
    await expect(run).rejects.toThrow(OperationalError);
    await expect(run).rejects.toThrow("cell-1: reading google prices failed: cloudbilling.googleapis.com answered 403");
    expect(readFileSync(file, "utf8")).toBe(original);
  });
});

describe("the AWS price list SDK", () => {
  it("is an optional peer dependency pinned exactly, as the secret stores' SDKs are", () => {
    const manifest = JSON.parse(readFileSync(join(MODELS_DIR, "..", "package.json"), "utf8"));
    expect(manifest.peerDependencies["@aws-sdk/client-pricing"]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.devDependencies["@aws-sdk/client-pricing"]).toBe(manifest.peerDependencies["@aws-sdk/client-pricing"]);
    expect(manifest.peerDependenciesMeta["@aws-sdk/client-pricing"]).toEqual({ optional: true });
  });

  it("fails when it is not installed (exit 1), with the command that installs it", () => {
    const missing = () => {
      throw Object.assign(new Error("Cannot find module"), { code: "MODULE_NOT_FOUND" });
    };
    expect(() => requirePricingSdk(missing)).toThrow(OperationalError);
    expect(() => requirePricingSdk(missing)).toThrow(/npm install --save-exact @aws-sdk\/client-pricing@\d+\.\d+\.\d+/);
    expect(() => requirePricingSdk(() => "/somewhere/index.js")).not.toThrow();
  });
});

describe("a bare number in cost.hourly_prices", () => {
  it("is shown as the model's own, undated, beside the table's dated prices", () => {
    const model = modelWith("cell-2", (m) => (m.cost.hourly_prices = { "t3.medium": 0.05 }));
    const cost = estimateCellCost(model);
    const asOf = PRICE_TABLE.as_of;
    expect(pricesUsed(cost)).toEqual(["t3.medium from the model's cost.hourly_prices (undated)", `m7i.large from data/prices.json, as of ${asOf}`]);
    expect(costText(cost).join("\n")).toContain(`prices: t3.medium from the model's cost.hourly_prices (undated); m7i.large from data/prices.json, as of ${asOf}`);
  });
});
