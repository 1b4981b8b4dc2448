/**
 * A template that renders invalid TOML or a script bash cannot parse stops prepare,
 * the dry run and the review with exit 1, naming the rendered file and its template.
 * Run through the real CLI of a copy of this project whose templates are broken.
 */
import { spawnSync } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { CHECKOUT_ROOT, createRepoFromCheckout, type TempRepo } from "../review/review-temp-repo";
import { STACK_TRACE_LINE } from "../support/cli";

describe("rendered files are parsed at synth time", () => {
  let repo: TempRepo;
  beforeAll(() => {
    // GIVEN a copy of the project whose working tree breaks config.toml and the worker's boot script
    repo = createRepoFromCheckout();
    repo.write("templates/config.toml.hbs", `${repo.read("templates/config.toml.hbs")}\n[[runners\n`);
    repo.write("scripts/worker/runner-fleet-worker", `${repo.read("scripts/worker/runner-fleet-worker")}\nif true; then\n  echo never closed\n`);
    // and this checkout's built commands (`npm test` builds first): the sources are the same, and the
    // bundles read templates/ of the copy they sit in (PROJECT_ROOT is found from the bundle's place).
    cpSync(join(CHECKOUT_ROOT, "dist", "bundle"), join(repo.dir, "dist", "bundle"), { recursive: true });
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

  it("fails the review of the working tree with exit 1", () => {
    const { status, output } = run("review", ["--base", "HEAD"]);
    expect(status).toBe(1);
    expectBrokenFilesNamed(output);
  }, 180_000);
});
