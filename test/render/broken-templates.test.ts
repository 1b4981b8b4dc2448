/**
 * A template that renders invalid TOML or a script bash cannot parse stops prepare,
 * the dry run and the review with exit 1, naming the rendered file and its template.
 * Run through the real CLI of a copy of this project's product whose templates are broken.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type { TempRepo } from "../review/review-temp-repo";
import { STACK_TRACE_LINE } from "../support/cli";
import { seedWorkingTreeCode } from "../review/seed-compiled-code";
import { createProductCopy } from "./support/product-copy";

describe("rendered files are parsed at synth time", () => {
  let repo: TempRepo;
  beforeAll(async () => {
    // GIVEN a copy of the product, with this checkout's built commands, whose working tree breaks config.toml
    // and the worker's boot script
    repo = createProductCopy();
    repo.write("templates/config.toml.hbs", `${repo.read("templates/config.toml.hbs")}\n[[runners\n`);
    repo.write("scripts/worker/runner-fleet-worker", `${repo.read("scripts/worker/runner-fleet-worker")}\nif true; then\n  echo never closed\n`);
    // (its code compiled as this checkout's dist/, when that is fresh: ../review/seed-compiled-code.ts)
    await seedWorkingTreeCode(repo);
  }, 180_000);
  afterAll(() => repo.cleanup());

  const run = (name: string, args: readonly string[]) => {
    const result = spawnSync(process.execPath, [join(repo.dir, "bin", name), ...args], { cwd: repo.dir, encoding: "utf8", timeout: 170_000 });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  };

  const expectBrokenFilesNamed = (output: string) => {
    expect(output).toMatch(/rendered\/small-amd64\/manager-0\/config\.toml \(from templates\/config\.toml\.hbs\) is not valid TOML: .+ at line \d+/);
    expect(output).toMatch(/rendered\/small-amd64\/worker-startup\.sh \(from templates\/startup\/payload\.sh\.hbs\) fails bash -n: \/usr\/local\/sbin\/runner-fleet-worker: .*syntax error/);
    expect(output).not.toMatch(STACK_TRACE_LINE);
  };

  it("fails prepare with exit 1", () => {
    const { status, output } = run("prepare", ["--model", "cell-1"]);
    expect(status).toBe(1);
    expectBrokenFilesNamed(output);
  });

  it("fails the dry run with exit 1, before any stack is written", () => {
    const { status, output } = run("provision", ["--model", "cell-1", "--dry-run", "--out", "dry-run-out"]);
    expect(status).toBe(1);
    expectBrokenFilesNamed(output);
    expect(spawnSync("test", ["-e", join(repo.dir, "dry-run-out", "stacks", "cell-1", "cdk.tf.json")]).status).not.toBe(0);
  });

  // The base is the copy's first commit, which has no models: nothing to compile or synthesize on that side,
  // so what fails is the working tree's synthesis (the rendered files' checks).
  it("fails the review of the working tree with exit 1", () => {
    const { status, output } = run("review", ["--base", "HEAD~1"]);
    expect(status).toBe(1);
    expectBrokenFilesNamed(output);
  }, 180_000);
});
