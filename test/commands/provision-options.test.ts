/**
 * provision's command line, parsed once into one mode: dry run, plan (of an apply or a destroy), drift,
 * apply (asking or not, onboarding or not, from a reviewed plan or not) or destroy. Each switch a mode
 * cannot use is refused (exit 2) before any model is read or anything is written.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { provisionCommand } from "../../app/commands/provision";
import { parseProvisionOptions } from "../../app/commands/provision-options";
import { STACK_TRACE_LINE } from "../support/cli";
import { parsedCommandLine, runCommandLine, refusalOf } from "../support/command-line";

const parse = (args: readonly string[]) => parseLine(["--model", "cell-1", ...args]);
const parseLine = (args: readonly string[]) => parseProvisionOptions(parsedCommandLine(provisionCommand(), args));

const refusal = (args: readonly string[]): string => refusalOf(parse, args);

describe("provision's modes", () => {
  it.each([
    [[], { kind: "apply", approval: "ask", onboard: true }],
    [["--auto-approve"], { kind: "apply", approval: "auto", onboard: true }],
    [["--auto-approve", "--skip-onboard"], { kind: "apply", approval: "auto", onboard: false }],
    [["--reviewed-plan", "p.tfplan"], { kind: "apply", approval: "ask", onboard: true, reviewedPlan: { file: "p.tfplan", whenMissing: "refuse" } }],
    [["--auto-approve", "--reviewed-plan", "p.tfplan", "--allow-unreviewed"], { kind: "apply", approval: "auto", onboard: true, reviewedPlan: { file: "p.tfplan", whenMissing: "apply" } }],
    [["--dry-run"], { kind: "dry-run" }],
    [["--plan", "--skip-onboard"], { kind: "plan", change: "apply" }],
    [["--plan", "--destroy"], { kind: "plan", change: "destroy" }],
    [["--drift"], { kind: "drift" }],
    [["--destroy"], { kind: "destroy", approval: "ask", removeRunners: true }],
    [["--destroy", "--auto-approve", "--skip-onboard"], { kind: "destroy", approval: "auto", removeRunners: false }],
  ])("%j is %j", (args, mode) => {
    expect(parse(args).mode).toEqual(mode);
  });

  it("keeps the settings every mode shares, typed", () => {
    const options = parseLine([
      "-m", "cell-1", "-m", "cell-2", "--models-dir", "models", "--engine", "tofu", "--out", "out", "--lock-timeout", "90s",
      "--allow-local-state", "--markdown", "plan.md", "--terraform-report", "r.json", "--post", "--token-env", "REVIEW", "--plan", "--json",
    ]);
    expect(options).toEqual({
      models: ["cell-1", "cell-2"],
      modelsDir: "models",
      mode: { kind: "plan", change: "apply" },
      engine: "tofu",
      out: "out",
      markdownFile: "plan.md",
      terraformReportFile: "r.json",
      lockTimeout: "90s",
      allowLocalState: true,
      post: true,
      tokenEnv: "REVIEW",
    });
    expect(parse([])).toMatchObject({ allowLocalState: false, post: false });
    // No --out: runProvision writes cdktf.out in the workspace, beside the models (lib/files/workspace.ts).
    expect(parse([]).out).toBeUndefined();
  });
});

describe("provision refuses", () => {
  it.each([
    [["--drift", "--auto-approve"], "--drift only plans: it cannot be combined with --auto-approve"],
    [["--drift", "--dry-run", "--destroy", "--plan", "--reviewed-plan", "p"], "--drift only plans: it cannot be combined with --dry-run, --destroy, --plan or --reviewed-plan"],
    [["--dry-run", "--destroy"], "--dry-run only synthesizes: it cannot be combined with --destroy"],
    [["--dry-run", "--auto-approve", "--plan"], "--dry-run only synthesizes: it cannot be combined with --auto-approve or --plan"],
    [["--dry-run", "--reviewed-plan", "p", "--allow-unreviewed"], "--dry-run only synthesizes: it cannot be combined with --reviewed-plan or --allow-unreviewed"],
    [["--plan", "--reviewed-plan", "p"], "--plan stops after the plan: it cannot be combined with --reviewed-plan"],
    [["--plan", "--auto-approve"], "--plan stops after the plan: it cannot be combined with --auto-approve"],
    [["--destroy", "--reviewed-plan", "p"], "--destroy cannot be combined with --reviewed-plan"],
    [["--allow-unreviewed"], "--allow-unreviewed goes with --reviewed-plan"],
    [["--engine", "terraform", "--lock-timeout", "soon"], '--lock-timeout must be a duration such as 5m, 90s or 1h30m, got "soon"'],
  ])("%j: %s (named in the order typed)", (args, message) => {
    expect(refusal(args)).toBe(message);
  });

  it("an engine commander does not know, in commander's words", async () => {
    const result = await runCommandLine(provisionCommand(), ["--model", "cell-1", "--engine", "opentofu"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("option '--engine <engine>' argument 'opentofu' is invalid. Allowed choices are terraform, tofu.");
  });
});

describe("bin/provision with switches that do not go together", () => {
  let out: string;
  beforeEach(() => {
    out = mkdtempSync(join(tmpdir(), "provision-options-"));
  });
  afterEach(() => rmSync(out, { recursive: true, force: true }));

  it("exits 2 naming them, without a stack trace, before reading a model or writing anything", async () => {
    const result = await runCommandLine(provisionCommand(), [
      "--model", "no-such-cell", "--dry-run", "--destroy", "--out", join(out, "cdktf.out"), "--markdown", join(out, "plan.md"), "--json",
    ]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe("error: --dry-run only synthesizes: it cannot be combined with --destroy\n");
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(JSON.parse(result.stdout)).toEqual({ ok: false, exitCode: 2, error: "--dry-run only synthesizes: it cannot be combined with --destroy" });
    expect(existsSync(join(out, "cdktf.out")) || existsSync(join(out, "plan.md"))).toBe(false);
  });
});
