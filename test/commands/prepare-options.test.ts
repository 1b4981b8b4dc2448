/**
 * prepare's command line, parsed once into a mode: validate, or generate (refusing, keeping or replacing
 * an existing model). Options that only mean something with --generate are refused without it (exit 2,
 * nothing written).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parsePrepareOptions } from "../../app/commands/prepare-options";
import { prepareCommand } from "../../app/commands/prepare";
import { UserInputError } from "../../lib/process/errors";
import { STACK_TRACE_LINE } from "../support/cli";
import { parsedCommandLine, runCommandLine } from "../support/command-line";

const parse = (args: readonly string[]) => parsePrepareOptions(parsedCommandLine(prepareCommand(), args));

describe("prepare's options", () => {
  it.each([
    [[], { models: [], mode: { kind: "validate" }, requireEngine: false }],
    [["-m", "cell-1", "--model", "cell-2", "--require-engine", "--models-dir", "m"], { models: ["cell-1", "cell-2"], modelsDir: "m", mode: { kind: "validate" }, requireEngine: true }],
    [["--generate"], { models: [], mode: { kind: "generate", whenExists: "refuse", destinations: {} }, requireEngine: false }],
    [["--generate", "--if-missing"], { models: [], mode: { kind: "generate", whenExists: "keep", destinations: {} }, requireEngine: false }],
    [["--generate", "--force", "--vars-file", "vars.json", "--json"], { models: [], mode: { kind: "generate", whenExists: "replace", varsFile: "vars.json", destinations: {} }, requireEngine: false }],
    [
      ["--generate", "--admin-token-env", "CELLS_ADMIN_TOKEN", "--allowed-gitlab-urls", "https://cell-7.gitlab.example.com, https://cell-8.gitlab.example.com"],
      {
        models: [],
        mode: { kind: "generate", whenExists: "refuse", destinations: { adminTokenEnv: "CELLS_ADMIN_TOKEN", allowedGitlabUrls: ["https://cell-7.gitlab.example.com", "https://cell-8.gitlab.example.com"] } },
        requireEngine: false,
      },
    ],
    // The component passes its input as it is: an empty list allows no GitLab at all.
    [["--generate", "--allowed-gitlab-urls", ""], { models: [], mode: { kind: "generate", whenExists: "refuse", destinations: { allowedGitlabUrls: [] } }, requireEngine: false }],
  ])("%j selects %j", (args, expected) => {
    expect(parse(args)).toEqual(expected);
  });

  it.each([
    [["--if-missing"], "--if-missing goes with --generate"],
    [["--force", "--vars-file", "v.json"], "--force and --vars-file go with --generate"],
    [["--allowed-gitlab-urls", "https://a.example.com"], "--allowed-gitlab-urls goes with --generate"],
    [["--generate", "--admin-token-env", "GITLAB TOKEN"], '--admin-token-env an environment variable name, such as GITLAB_TOKEN, got "GITLAB TOKEN"'],
    [["--generate", "--if-missing", "--force"], "--if-missing keeps an existing model and --force replaces it: pass one of them"],
  ])("refuses %j: %s", (args, message) => {
    expect(() => parse(args)).toThrow(new UserInputError(message));
  });
});

describe("bin/prepare with options that do not go together", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "prepare-options-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("exits 2 with the message, no stack trace, and writes nothing", async () => {
    const result = await runCommandLine(prepareCommand(), ["--models-dir", dir, "--generate", "--if-missing", "--force"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe("error: --if-missing keeps an existing model and --force replaces it: pass one of them\n");
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(result.stdout).toBe("");
    expect(existsSync(join(dir, "schema.json"))).toBe(false);
  });

  it("with --json, also says it on stdout as JSON", async () => {
    const result = await runCommandLine(prepareCommand(), ["--models-dir", dir, "--force", "--json"]);
    expect(result.status).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({ ok: false, exitCode: 2, error: "--force goes with --generate" });
  });
});
