/**
 * `prices`: reads the on-demand prices a cell's estimate lacks from its cloud's own price API, with the
 * user's credentials, and (--write) records each in the model's cost.hourly_prices as
 * { usd, as_of, source }, so every figure the dry run, review and simulate print keeps its date and
 * source. AWS: the Price List Query API (@aws-sdk/client-pricing, an optional peer dependency, and the
 * default credential chain). Google Cloud: the Cloud Billing Catalog and Compute Engine APIs with an
 * access token (`gcloud auth print-access-token`). A type an API does not price plainly stays unknown,
 * with the reason, and the command exits 1. docs/operations/cost.md.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Option, type Command } from "commander";
import { cliCommand, jsonOption, modelsDirOption, modelsOption, withDefault } from "../cli/options";
import { PRICING_SDK, sdkGetProducts } from "../../lib/cost/refresh/aws-price-list";
import { fetchGoogleGet } from "../../lib/cost/refresh/google-billing-catalog";
import type { PriceAnswer } from "../../lib/cost/refresh/price-answer";
import { pricesToRefresh, readPrices, type PriceApis } from "../../lib/cost/refresh/refresh-prices";
import { withModelPrices } from "../../lib/cost/refresh/write-model-prices";
import { PROJECT_ROOT } from "../../lib/files/project-root";
import { toolkitPeerVersion } from "../../lib/files/toolkit-version";
import { workspaceDir } from "../../lib/files/workspace";
import { loadModelFile } from "../../lib/model/load";
import { listModelFiles, modelsDir, resolveModelArgument } from "../../lib/model/model-files";
import { OperationalError, UserInputError } from "../../lib/process/errors";
import type { PackageResolver } from "../../lib/secrets/store-sdk";

export const DEFAULT_GOOGLE_TOKEN_ENV = "GOOGLE_OAUTH_ACCESS_TOKEN";

export interface PricesOptions {
  readonly models: readonly string[];
  readonly modelsDir?: string;
  readonly all: boolean;
  readonly write: boolean;
  readonly googleTokenEnv: string;
  /** The APIs (tests: stand-ins). @default the clouds' own, with the user's credentials */
  readonly apis?: PriceApis;
  readonly env?: NodeJS.ProcessEnv;
}

export interface CellPrices {
  readonly cell: string;
  readonly file: string;
  readonly answers: readonly PriceAnswer[];
  readonly written: boolean;
}

export interface PricesResult {
  readonly cells: readonly CellPrices[];
  /** 0: every type asked for is priced; 1: some stay unknown. */
  readonly exitCode: number;
}

export async function runPrices(options: PricesOptions): Promise<PricesResult> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(options.googleTokenEnv)) {
    throw new UserInputError(`--google-token-env: "${options.googleTokenEnv}" is not an environment variable name; expected one such as ${DEFAULT_GOOGLE_TOKEN_ENV}`);
  }
  const dir = modelsDir(options.modelsDir);
  const files = options.models.length > 0 ? options.models.map((name) => resolveModelArgument(name, dir)) : listModelFiles(dir);
  // Every model is checked before any API is called or file written.
  const loaded = files.map((file) => ({ file, model: loadModelFile(file, { workspace: workspaceDir(options.modelsDir) }).model }));
  const apis = options.apis ?? cloudApis(options.env ?? process.env, options.googleTokenEnv);
  const skuCache = {};
  const cells: CellPrices[] = [];
  for (const { file, model } of loaded) {
    const answers = await readPrices(model, pricesToRefresh(model, { all: options.all }), apis, skuCache).catch((error: unknown) => {
      // Credentials, permissions, a disabled API, the network: the cloud's own words, without a stack.
      if (error instanceof OperationalError || error instanceof UserInputError) throw error;
      throw new OperationalError(`${model.cell.id}: reading ${model.cloud.provider} prices failed: ${error instanceof Error ? error.message : String(error)}`);
    });
    const found = answers.some((answer) => answer.found);
    if (options.write && found) writeFileSync(file, withModelPrices(readFileSync(file, "utf8"), answers));
    cells.push({ cell: model.cell.id, file, answers, written: options.write && found });
  }
  return { cells, exitCode: cells.some((cell) => cell.answers.some((answer) => !answer.found)) ? 1 : 0 };
}

/** Throws (exit 1, before any call) when @aws-sdk/client-pricing is not installed, with the command that installs it. */
export function requirePricingSdk(resolve: PackageResolver = (name) => createRequire(join(PROJECT_ROOT, "package.json")).resolve(name)): void {
  try {
    resolve(PRICING_SDK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw error;
    throw new OperationalError(`reading AWS prices needs ${PRICING_SDK}, an optional peer dependency of runner-fleet, installed beside it: npm install --save-exact ${PRICING_SDK}@${toolkitPeerVersion(PRICING_SDK)}`);
  }
}

function cloudApis(env: NodeJS.ProcessEnv, tokenEnv: string): PriceApis {
  return {
    now: new Date(),
    aws: async () => {
      requirePricingSdk();
      return sdkGetProducts();
    },
    google: () => {
      const token = env[tokenEnv];
      if (!token) throw new OperationalError(`reading Google Cloud prices needs an access token in $${tokenEnv} (export ${tokenEnv}="$(gcloud auth print-access-token)")`);
      return fetchGoogleGet(token);
    },
  };
}

export function formatPricesReport(result: PricesResult, { write }: { readonly write: boolean }): string {
  const lines: string[] = [];
  for (const cell of result.cells) {
    if (cell.answers.length === 0) {
      lines.push(`${cell.cell}: every machine type is priced (the model or data/prices.json)`);
      continue;
    }
    lines.push(`${cell.cell} (${cell.answers[0].cloud} ${cell.answers[0].region}):`);
    for (const answer of cell.answers) {
      lines.push(answer.found ? `  ${answer.machineType}: $${answer.usd}/h as of ${answer.asOf} from ${answer.source}` : `  ${answer.machineType}: unknown: ${answer.reason}`);
    }
    if (cell.written) lines.push(`  written to ${cell.file} under cost.hourly_prices`);
  }
  if (!write && result.cells.some((cell) => cell.answers.some((answer) => answer.found))) lines.push("nothing written: --write records these prices in the models");
  return `${lines.join("\n")}\n`;
}

export function pricesCommand(): Command {
  return cliCommand("prices")
    .description("read the on-demand prices the models' cost estimates lack from the clouds' price APIs; --write records them, dated, in cost.hourly_prices")
    .addOption(modelsOption("every model in the models directory"))
    .addOption(modelsDirOption())
    .addOption(new Option("--all", "ask again for every machine type, also those data/prices.json or an earlier refresh priced (never a bare number the team set)"))
    .addOption(new Option("--write", "write the prices found into each model's cost.hourly_prices as { usd, as_of, source }"))
    .addOption(withDefault(new Option("--google-token-env <name>", "the variable holding a Google access token, for Google Cloud cells"), DEFAULT_GOOGLE_TOKEN_ENV, DEFAULT_GOOGLE_TOKEN_ENV))
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nAWS: the Price List Query API (pricing:GetProducts) with the default credential chain; needs @aws-sdk/client-pricing installed.\n" +
        "Google Cloud: the Cloud Billing Catalog API (Compute Engine SKUs) and Compute Engine machineTypes.get in the cell's first zone.\n" +
        "Exit codes: 0 every type asked for is priced, 1 some stay unknown (named with the reason) or an API failed, 2 invalid model or usage.",
    )
    .action(async function (this: Command) {
      const flags = this.opts<{ model: string[]; modelsDir?: string; all?: boolean; write?: boolean; googleTokenEnv: string; json?: boolean }>();
      const result = await runPrices({ models: flags.model, modelsDir: flags.modelsDir, all: flags.all === true, write: flags.write === true, googleTokenEnv: flags.googleTokenEnv });
      process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatPricesReport(result, { write: flags.write === true }));
      process.exitCode = result.exitCode;
    });
}
