/**
 * CI proves the newcomer's path: `.ci/run` runs the README's set-up and test commands ("First run"),
 * the same ones in the same order, and nothing else; tools/fresh-machine-check.sh runs that block.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");

/** The lines of the README's first sh block under "## First run", without their comments. */
function firstRunBlock(readme: string): string[] {
  const section = readme.slice(readme.indexOf("\n## First run\n"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "");
}

/** The commands .ci/run runs: its lines less comments, shell options, the cd to the clone and unset. */
function ciCommands(script: string): string[] {
  return script
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#") && !/^(set |cd |unset )/.test(line));
}

describe("the README's First run and .ci/run", () => {
  const readme = firstRunBlock(readFileSync(join(ROOT, "README.md"), "utf8"));
  const ci = ciCommands(readFileSync(join(ROOT, ".ci", "run"), "utf8"));

  it("set up with npm run setup and test with npm test", () => {
    expect(readme[0]).toBe("npm run setup");
    expect(readme).toContain("npm test");
    expect(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts.setup).toBe("bash tools/setup.sh");
  });

  it("run the same npm commands in the same order, and CI nothing else", () => {
    expect(ci).toEqual(readme.filter((line) => line.startsWith("npm ")));
  });
});
