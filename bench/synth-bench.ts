/**
 * `npm run bench`: how long synthesis takes and how much memory it needs, as a
 * user experiences it (a fresh `node` process per case), against the budgets:
 * both examples under 0.6 s and 150 MB; 100 cells under 5 s and 600 MB.
 * For comparison, the stock cdktf approach (ts-node, provider root imports) on one cell.
 * Exits 1 when a budget is exceeded.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateModel } from "../app/prepare/generate-model";
import { PROJECT_ROOT } from "../lib/project-root";

interface Measurement {
  cells: number;
  resources: number;
  synthMs: number;
  processMs: number;
  peakRssMb: number;
}

interface Case {
  name: string;
  modelsDir: string;
  budget?: { seconds: number; megabytes: number };
  stock?: boolean;
}

const work = mkdtempSync(join(tmpdir(), "runner-fleet-bench-"));

function examplesDir(names: string[]): string {
  const dir = join(work, `examples-${names.join("-")}`);
  mkdirSync(dir);
  for (const name of names) copyFileSync(join(PROJECT_ROOT, "models", `${name}.yaml`), join(dir, `${name}.yaml`));
  return dir;
}

/** A fleet of generated cells, alternating clouds, as trigger variables would create them. */
function generatedFleet(count: number): string {
  const dir = join(work, `fleet-${count}`);
  mkdirSync(dir);
  for (let index = 0; index < count; index++) {
    const google = index % 2 === 0;
    const cellId = `cell-${index + 100}`;
    const { text } = generateModel({
      CELL_ID: cellId,
      GITLAB_URL: `https://${cellId}.gitlab.example.com`,
      CLOUD: google ? "google" : "aws",
      REGION: google ? "europe-west4" : "eu-west-1",
      PROJECT: google ? `acme-runners-${cellId}` : undefined,
      ACCOUNT_ID: google ? undefined : "123456789012",
      NETWORK_CIDR: `10.${index % 250}.0.0/16`,
    });
    writeFileSync(join(dir, `${cellId}.yaml`), text);
  }
  return dir;
}

function measure(benchCase: Case): Measurement {
  const outdir = join(work, "out", benchCase.name.replace(/\W+/g, "-"));
  const command = benchCase.stock
    ? ["-r", require.resolve("ts-node/register"), join(PROJECT_ROOT, "bench", "stock", "stock-main.ts")]
    : [join(PROJECT_ROOT, "dist", "bench", "synth-worker.js")];
  const env = benchCase.stock
    ? { ...process.env, TS_NODE_COMPILER: "typescript5", TS_NODE_PROJECT: join(PROJECT_ROOT, "bench", "stock", "tsconfig.json") }
    : process.env;
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [...command, benchCase.modelsDir, outdir], { encoding: "utf8", env, cwd: PROJECT_ROOT });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${benchCase.name} failed:\n${result.stderr}`);
  const measurement = JSON.parse(result.stdout.trim().split("\n").pop()!) as Measurement;
  return { ...measurement, processMs: wallMs };
}

function main(): void {
  const cases: Case[] = [
    { name: "examples (cell-1 + cell-2)", modelsDir: examplesDir(["cell-1", "cell-2"]), budget: { seconds: 0.6, megabytes: 150 } },
    { name: "generated, 1 cell", modelsDir: generatedFleet(1) },
    { name: "generated, 10 cells", modelsDir: generatedFleet(10) },
    { name: "generated, 100 cells", modelsDir: generatedFleet(100), budget: { seconds: 5, megabytes: 600 } },
    { name: "stock cdktf (ts-node, root imports), cell-1", modelsDir: examplesDir(["cell-1"]), stock: true },
  ];
  const rows: string[] = [];
  let overBudget = 0;
  for (const benchCase of cases) {
    process.stderr.write(`bench: ${benchCase.name}...\n`);
    const m = measure(benchCase);
    let verdict = "";
    if (benchCase.budget) {
      const ok = m.processMs / 1000 < benchCase.budget.seconds && m.peakRssMb < benchCase.budget.megabytes;
      if (!ok) overBudget++;
      verdict = `${ok ? "within" : "OVER"} budget (< ${benchCase.budget.seconds} s, < ${benchCase.budget.megabytes} MB)`;
    }
    rows.push(
      `${benchCase.name.padEnd(46)} ${String(m.cells).padStart(4)} cells ${String(m.resources).padStart(6)} resources  ` +
        `wall ${(m.processMs / 1000).toFixed(3).padStart(7)} s  synth ${(m.synthMs / 1000).toFixed(3).padStart(7)} s  ` +
        `peak ${m.peakRssMb.toFixed(0).padStart(5)} MB  ${verdict}`,
    );
  }
  process.stdout.write(`${rows.join("\n")}\n`);
  rmSync(work, { recursive: true, force: true });
  if (overBudget > 0) {
    process.stderr.write(`bench: ${overBudget} case(s) over budget\n`);
    process.exitCode = 1;
  }
}

main();
