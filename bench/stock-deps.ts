/**
 * The stock comparison's own dependencies (ts-node, TypeScript 5) live in bench/stock/ with their own
 * lockfile, not among the product's: they are installed there by `npm ci` the first time the bench
 * needs them, and again when the installed versions differ from bench/stock/package.json.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../lib/files/project-root";

export const STOCK_DIR = join(PROJECT_ROOT, "bench", "stock");

function installedVersion(name: string): string | undefined {
  const manifest = join(STOCK_DIR, "node_modules", name, "package.json");
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version : undefined;
}

export function ensureStockDependencies(): void {
  const wanted = (JSON.parse(readFileSync(join(STOCK_DIR, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies;
  if (Object.entries(wanted).every(([name, version]) => installedVersion(name) === version)) return;
  process.stderr.write(`bench: installing the stock comparison's dependencies in ${STOCK_DIR} (npm ci)\n`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { cwd: STOCK_DIR, stdio: ["ignore", "inherit", "inherit"] });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`npm ci in ${STOCK_DIR} exited ${result.status ?? result.signal}`);
}

/** The ts-node hook installed in bench/stock/. */
export function stockTsNodeRegister(): string {
  return require.resolve("ts-node/register", { paths: [STOCK_DIR] });
}

/** TypeScript 5, installed in bench/stock/. */
export function stockTypeScript(): string {
  return require.resolve("typescript", { paths: [STOCK_DIR] });
}
