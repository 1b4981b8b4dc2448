/**
 * review's command line, parsed once into one mode: a review, the list of changed cells, or a child
 * pipeline. An option the mode does not use is refused (exit 2), not ignored.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reviewCommand } from "../../app/commands/review";
import { parseReviewOptions } from "../../app/commands/review-options";
import { STACK_TRACE_LINE } from "../support/cli";
import { parsedCommandLine, runCommandLine, refusalOf } from "../support/command-line";

const parse = (args: readonly string[]) => parseReviewOptions(parsedCommandLine(reviewCommand(), args));

const refusal = (args: readonly string[]): string => refusalOf(parse, args);

describe("review's modes", () => {
  it.each([
    [["--base", "origin/main"], { kind: "review", base: "origin/main", changedOnly: false, post: false }],
    [
      ["--base", "b", "--head", "h", "--changed-only", "--markdown", "review.md", "--post", "--token-env", "T", "--json"],
      { kind: "review", base: "b", head: "h", changedOnly: true, markdownFile: "review.md", post: true, tokenEnv: "T" },
    ],
    [["--changed-cells", "--base", "b", "--head", "h"], { kind: "changed-cells", base: "b", head: "h" }],
    [["--child-pipeline", "child.yml", "--base", "b", "--mode", "plan"], { kind: "child-pipeline", file: "child.yml", pipeline: "plan", applyMode: "auto", cells: { changedSince: "b" }, toolkit: {} }],
    [
      ["--child-pipeline", "child.yml", "--mode", "apply", "--apply-mode", "manual", "--all", "--image", "node:22"],
      { kind: "child-pipeline", file: "child.yml", pipeline: "apply", applyMode: "manual", image: "node:22", cells: "all", toolkit: {} },
    ],
    [
      ["--child-pipeline", "child.yml", "--mode", "plan", "--base", "b", "--toolkit-command", "npx --no-install runner-fleet", "--toolkit-dir", "node_modules/runner-fleet"],
      {
        kind: "child-pipeline",
        file: "child.yml",
        pipeline: "plan",
        applyMode: "auto",
        cells: { changedSince: "b" },
        toolkit: { command: "npx --no-install runner-fleet", dir: "node_modules/runner-fleet" },
      },
    ],
  ])("%j is %j", (args, mode) => {
    expect(parse(args).mode).toEqual(mode);
  });

  it("keeps --models-dir in every mode", () => {
    expect(parse(["--base", "b", "--models-dir", "m"]).modelsDir).toBe("m");
    expect(parse(["--child-pipeline", "c.yml", "--mode", "drift", "--all", "--models-dir", "m"]).modelsDir).toBe("m");
  });
});

describe("review refuses", () => {
  it.each([
    [[], "--base <git-ref> is required"],
    [["--base", "b", "--mode", "plan", "--all"], "--mode and --all go with --child-pipeline"],
    [["--base", "b", "--image", "x"], "--image goes with --child-pipeline"],
    [["--base", "b", "--toolkit-command", "npx runner-fleet"], "--toolkit-command goes with --child-pipeline"],
    // Written into the child pipeline's shell lines: anything a shell would interpret is refused.
    [
      ["--child-pipeline", "c.yml", "--base", "b", "--mode", "plan", "--toolkit-command", "npx --no-install runner-fleet; curl x | sh"],
      '--toolkit-command must be plain words (letters, digits, _ . / @ = - and spaces), e.g. npx --no-install runner-fleet, got "npx --no-install runner-fleet; curl x | sh"',
    ],
    [
      ["--child-pipeline", "c.yml", "--base", "b", "--mode", "plan", "--toolkit-command", "npx runner-fleet"],
      '--toolkit-command must run the installed toolkit: npx --no-install runner-fleet (a plain npx fetches a package of that name when none is installed), got "npx runner-fleet"',
    ],
    [["--child-pipeline", "c.yml", "--base", "b", "--mode", "plan", "--toolkit-dir", "$(id)"], '--toolkit-dir must be a path of letters, digits and _ . @ / -, e.g. node_modules/runner-fleet, got "$(id)"'],
    [["--changed-cells", "--base", "b", "--post", "--markdown", "r.md"], "--changed-cells only lists the cells to plan: it cannot be combined with --post or --markdown"],
    [["--changed-cells", "--child-pipeline", "c.yml", "--base", "b", "--mode", "plan"], "--child-pipeline writes a pipeline: it cannot be combined with --changed-cells"],
    [["--child-pipeline", "c.yml", "--base", "b"], "--child-pipeline needs --mode plan, apply or drift"],
    [["--child-pipeline", "c.yml", "--base", "b", "--mode", "destroy"], '--child-pipeline needs --mode plan, apply or drift, got "destroy"'],
    [["--child-pipeline", "c.yml", "--mode", "plan"], "--child-pipeline needs --base <git-ref> (or --all)"],
    [["--child-pipeline", "c.yml", "--base", "b", "--mode", "apply", "--apply-mode", "Manual"], '--apply-mode (APPLY_MODE in the pipeline) must be auto or manual, got "Manual"'],
    [["--child-pipeline", "c.yml", "--base", "b", "--mode", "plan", "--head", "h", "--changed-only"], "--child-pipeline writes a pipeline: it cannot be combined with --head or --changed-only"],
    // --apply-mode's default is the schema's: typed where no child pipeline is written, it is refused, not ignored.
    [["--base", "b", "--apply-mode", "manual"], "--apply-mode goes with --child-pipeline"],
    [["--base", "b", "--apply-mode", "auto"], "--apply-mode goes with --child-pipeline"],
    [["--changed-cells", "--base", "b", "--apply-mode", "manual"], "--changed-cells only lists the cells to plan: it cannot be combined with --apply-mode"],
  ])("%j: %s", (args, message) => {
    expect(refusal(args)).toBe(message);
  });
});

it("--help still shows --apply-mode's default", () => {
  const help = reviewCommand().helpInformation().replace(/\s+/g, " ");
  expect(help).toContain("--apply-mode <mode> with --mode apply: auto, or manual (each apply job waits for a person) (default: auto)");
});

describe("bin/review with options that do not go together", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "review-options-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("exits 2 naming them, without a stack trace, and writes no pipeline", async () => {
    const file = join(dir, "child.yml");
    const result = await runCommandLine(reviewCommand(), ["--child-pipeline", file, "--all", "--mode", "apply", "--apply-mode", "later"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('error: --apply-mode (APPLY_MODE in the pipeline) must be auto or manual, got "later"\n');
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(existsSync(file)).toBe(false);
  });

  it("exits 2 for --apply-mode without --child-pipeline", async () => {
    const result = await runCommandLine(reviewCommand(), ["--base", "HEAD", "--apply-mode", "manual"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe("error: --apply-mode goes with --child-pipeline\n");
  });
});
