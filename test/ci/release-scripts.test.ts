/**
 * The scripts of a release (ci/release/release.gitlab-ci.yml), run as its jobs run them:
 * ci/release/release-check.js in a checkout, ci/release/publish-npm.sh with GitLab's predefined
 * variables and an `npm` stand-in that records what it was asked and what its config file held.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validatorPath } from "../support/validators";

const ROOT = join(__dirname, "..", "..");
const RELEASE_CHECK = join(ROOT, "ci", "release", "release-check.js");
const PUBLISH_NPM = join(ROOT, "ci", "release", "publish-npm.sh");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "release-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("release-check.js", () => {
  const CHANGELOG = [
    "# Changelog",
    "",
    "Preamble.",
    "",
    "## [Unreleased]",
    "",
    "- Work in progress.",
    "",
    "## [1.2.0] - 2026-12-01",
    "",
    "Managers roll one slot at a time.",
    "",
    "### For running fleets",
    "",
    "- Replaces: none.",
    "",
    "## [1.1.0] - 2026-11-28",
    "",
    "### For running fleets",
    "",
    "- Replaces: every manager.",
    "",
    "[1.2.0]: https://gitlab.example.com/platform/runner-fleet/-/compare/1.1.0...1.2.0",
    "",
  ].join("\n");

  function check(tag: string, packageVersion: string, changelog = CHANGELOG) {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "runner-fleet", version: packageVersion }));
    writeFileSync(join(dir, "CHANGELOG.md"), changelog);
    const result = spawnSync(process.execPath, [RELEASE_CHECK, tag, "release-notes.md"], { cwd: dir, encoding: "utf8" });
    const notesFile = join(dir, "release-notes.md");
    return { ...result, notes: existsSync(notesFile) ? readFileSync(notesFile, "utf8") : undefined };
  }

  it("passes when the tag, package.json and a dated section agree, and writes that section alone as the notes", () => {
    const result = check("1.2.0", "1.2.0");
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.notes).toBe("Managers roll one slot at a time.\n\n### For running fleets\n\n- Replaces: none.\n");
  });

  /** The checks alone, in this process (the script exports them): the cases below need no process of their own. */
  const { releaseProblems } = require(RELEASE_CHECK) as { releaseProblems: (tag: string, version: string, changelog: string) => { problems: string[]; notes: string } };

  it("takes a prerelease tag with its own section", () => {
    const result = releaseProblems("1.3.0-rc.1", "1.3.0-rc.1", CHANGELOG.replace("## [Unreleased]\n\n- Work in progress.", "## [1.3.0-rc.1] - 2026-12-05\n\n### For running fleets\n\n- Replaces: none."));
    expect(result).toEqual({ problems: [], notes: "### For running fleets\n\n- Replaces: none.\n" });
  });

  it("refuses a tag package.json does not carry, naming both and the fix, and writes nothing", () => {
    const result = check("1.2.0", "1.1.0");
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      'release-check: package.json has version "1.1.0", the tag is "1.2.0": set it with `npm version --no-git-tag-version 1.2.0`, merge, and tag that commit\n',
    );
    expect(result.notes).toBeUndefined();
  });

  it("refuses a version without its changelog section (the review of a team's upgrade would show nothing)", () => {
    expect(releaseProblems("1.4.0", "1.4.0", CHANGELOG).problems).toEqual([
      'CHANGELOG.md has no section "## [1.4.0] - <date>": rename "## [Unreleased]" to it, with the release date',
    ]);
  });

  it("refuses an undated section, and a section without its For running fleets part, each a problem of its own", () => {
    const changelog = CHANGELOG.replace("## [1.2.0] - 2026-12-01", "## [1.2.0]").replace("### For running fleets\n\n- Replaces: none.", "- Faster.");
    expect(releaseProblems("1.2.0", "1.2.0", changelog).problems).toEqual([
      `CHANGELOG.md's section for 1.2.0 has no date: expected "## [1.2.0] - YYYY-MM-DD", got a date of ""`,
      `CHANGELOG.md's section for 1.2.0 has no "### For running fleets" part (what applying it replaces, creates and newly requires)`,
    ]);
  });

  it.each(["v1.2.0", "1.2", "latest"])("refuses the tag %s with that one problem: the catalog takes the tag as the version", (tag) => {
    expect(releaseProblems(tag, "1.2.0", CHANGELOG).problems).toEqual([
      `tag "${tag}" is not a release version: expected X.Y.Z or X.Y.Z-prerelease, without a "v" (the CI/CD catalog takes the tag as the version)`,
    ]);
  });

  it("says where it must run when there is no checkout, without a stack trace", () => {
    const result = spawnSync(process.execPath, [RELEASE_CHECK, "1.2.0", "notes.md"], { cwd: dir, encoding: "utf8" });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^release-check: run it in the checkout being released: ENOENT: no such file or directory, open 'package\.json'\n$/);
  });

  it("passes for this checkout's own version: every version package.json names has its section", () => {
    const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
    expect(releaseProblems(version, version, readFileSync(join(ROOT, "CHANGELOG.md"), "utf8")).problems).toEqual([]);
  });
});

describe("publish-npm.sh", () => {
  const TOKEN = "glcbt-64_release-job-token-never-shown";
  const CI = { CI_API_V4_URL: "https://gitlab.example.com/api/v4", CI_PROJECT_ID: "42", CI_JOB_TOKEN: TOKEN };

  /** `npm` on PATH: records its arguments and the config file it was given, while that file exists. */
  function npmStandIn(): string {
    const bin = join(dir, "bin");
    mkdirSync(bin);
    const npm = join(bin, "npm");
    writeFileSync(
      npm,
      [
        "#!/bin/sh",
        `printf '%s\\n' "$@" > "${join(dir, "npm-args")}"`,
        'while [ $# -gt 0 ]; do [ "$1" = --userconfig ] && cat "$2" > "' + join(dir, "npm-config") + '"; shift; done',
        "echo '+ runner-fleet'",
      ].join("\n"),
    );
    chmodSync(npm, 0o755);
    return bin;
  }

  function publish(version: string, tarballName = `runner-fleet-${version}.tgz`, env: Record<string, string> = CI) {
    const bin = npmStandIn();
    mkdirSync(join(dir, "release"));
    writeFileSync(join(dir, "release", tarballName), "packed");
    const result = spawnSync("sh", [PUBLISH_NPM, version, `release/${tarballName}`], {
      cwd: dir,
      env: { PATH: `${bin}:/usr/bin:/bin`, TMPDIR: dir, ...env },
      encoding: "utf8",
    });
    const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), "utf8") : undefined);
    return { ...result, args: read("npm-args")?.trim().split("\n"), config: read("npm-config") };
  }

  it("publishes the tarball to the project's registry as latest, with the job token in a config file of its own", () => {
    const result = publish("1.2.0");
    expect(result.status).toBe(0);
    const registry = "https://gitlab.example.com/api/v4/projects/42/packages/npm/";
    // "./": npm reads "release/x.tgz" as a GitHub repository.
    expect(result.args).toEqual(["publish", "./release/runner-fleet-1.2.0.tgz", "--registry", registry, "--tag", "latest", "--userconfig", expect.stringMatching(/^\//), "--update-notifier=false"]);
    expect(result.config).toBe(`//gitlab.example.com/api/v4/projects/42/packages/npm/:_authToken=${TOKEN}\n`);
    // The config file is gone, and the token was never an argument nor in the output.
    expect(existsSync(result.args![7]!)).toBe(false);
    expect(result.args!.join(" ")).not.toContain(TOKEN);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    expect(result.stdout).toContain(`publish-npm: runner-fleet 1.2.0 to ${registry} (dist-tag latest)`);
  });

  it("publishes through the real npm: one PUT of the package at the project's registry, the job token as its bearer, never in the output", async () => {
    // A registry stand-in that answers npm publish's PUT (npm's registry API: PUT /<name> with the
    // package document) and records what arrived; the tarball is a package as npm pack lays it out.
    const arrived: Array<{ method?: string; url?: string; authorization?: string; document?: { "dist-tags"?: unknown; versions?: object; _attachments?: object } }> = [];
    const server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      request.on("end", () => {
        arrived.push({ method: request.method, url: request.url, authorization: request.headers.authorization, document: body ? JSON.parse(body) : undefined });
        response.writeHead(request.method === "PUT" ? 201 : 404, { "content-type": "application/json" }).end(request.method === "PUT" ? '{"ok":true}' : "{}");
      });
    });
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    try {
      const port = (server.address() as AddressInfo).port;
      mkdirSync(join(dir, "package"));
      writeFileSync(join(dir, "package", "package.json"), JSON.stringify({ name: "runner-fleet", version: "1.2.0" }));
      mkdirSync(join(dir, "release"));
      expect(spawnSync("tar", ["-czf", "release/runner-fleet-1.2.0.tgz", "package"], { cwd: dir }).status).toBe(0);
      const env = { ...process.env, CI_API_V4_URL: `http://127.0.0.1:${port}/api/v4`, CI_PROJECT_ID: "42", CI_JOB_TOKEN: TOKEN, npm_config_cache: join(dir, "npm-cache") };
      const result = await new Promise<{ status: number | null; output: string }>((done) => {
        const child = spawn("sh", [PUBLISH_NPM, "1.2.0", "release/runner-fleet-1.2.0.tgz"], { cwd: dir, env });
        let output = "";
        child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
        child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
        child.on("close", (status) => done({ status, output }));
      });
      expect(result.output).not.toContain(TOKEN);
      expect(result.status).toBe(0);
      // Only the package's own requests: no update check asking this registry for the package "npm".
      expect(arrived.map((request) => request.url)).toEqual(expect.arrayContaining(["/api/v4/projects/42/packages/npm/runner-fleet"]));
      expect(arrived.filter((request) => request.url !== "/api/v4/projects/42/packages/npm/runner-fleet")).toEqual([]);
      const puts = arrived.filter((request) => request.method === "PUT");
      expect(puts).toHaveLength(1);
      expect(puts[0]).toMatchObject({ url: "/api/v4/projects/42/packages/npm/runner-fleet", authorization: `Bearer ${TOKEN}` });
      expect(puts[0]!.document).toMatchObject({ "dist-tags": { latest: "1.2.0" } });
      expect(Object.keys(puts[0]!.document!.versions!)).toEqual(["1.2.0"]);
      expect(Object.keys(puts[0]!.document!._attachments!)).toEqual(["runner-fleet-1.2.0.tgz"]);
    } finally {
      server.close();
    }
  }, 60_000);

  it("publishes a prerelease under the dist-tag next, leaving latest on the newest release", () => {
    expect(publish("1.3.0-rc.1").args).toEqual(expect.arrayContaining(["--tag", "next"]));
  });

  it("keeps a GitLab under a path (relative URL root) in the registry and its token key", () => {
    const result = publish("1.2.0", undefined, { ...CI, CI_API_V4_URL: "https://example.com/gitlab/api/v4" });
    expect(result.args).toEqual(expect.arrayContaining(["--registry", "https://example.com/gitlab/api/v4/projects/42/packages/npm/"]));
    expect(result.config).toBe(`//example.com/gitlab/api/v4/projects/42/packages/npm/:_authToken=${TOKEN}\n`);
  });

  it("refuses a tarball of another version, and runs no npm", () => {
    const result = publish("1.2.0", "runner-fleet-1.1.0.tgz");
    expect(result.status).toBe(2);
    expect(result.stderr).toBe("publish-npm: release/runner-fleet-1.1.0.tgz is not runner-fleet-1.2.0.tgz: refusing to publish another version under tag 1.2.0\n");
    expect(result.args).toBeUndefined();
  });

  it("stops outside a GitLab job, naming the variable, and runs no npm", () => {
    const { CI_JOB_TOKEN: _token, ...withoutToken } = CI;
    const result = publish("1.2.0", undefined, withoutToken);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("CI_JOB_TOKEN is not set: run this in a GitLab CI job");
    expect(result.args).toBeUndefined();
  });

  it("passes shellcheck as the POSIX sh the job runs it with", () => {
    const result = spawnSync(validatorPath("shellcheck"), ["--shell=sh", PUBLISH_NPM], { encoding: "utf8" });
    expect(result.stdout).toBe("");
    expect(result.status).toBe(0);
    expect(readFileSync(PUBLISH_NPM, "utf8").startsWith("#!/bin/sh\n")).toBe(true);
  });
});
