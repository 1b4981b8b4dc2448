#!/usr/bin/env node
"use strict";
/**
 * Before a release of runner-fleet is published (ci/release/release.gitlab-ci.yml, a tag pipeline of
 * this repository): the tag is the version in package.json, and CHANGELOG.md has that version's
 * section, dated, with its "For running fleets" part. The section's text is written to the notes file:
 * the release's description on GitLab, and so the CI/CD catalog's page of the version.
 *
 *   node ci/release/release-check.js <tag> <notes file>      (in the checkout, after `npm ci` and `npm run build`)
 *
 * Why each check: the CI/CD catalog takes the tag as the component's version, npm takes package.json's,
 * and the component's `toolkit_version` input compares the two in every team's jobs
 * (ci/check-toolkit-version.sh): a release whose numbers differ would fail every pipeline that pins
 * it. The review note of a team's upgrade shows the changelog sections it crosses
 * (lib/review/toolkit-upgrade.ts): a version without one would show nothing.
 *
 * Exit 2 with one line per problem on stderr; nothing is written then.
 */
const { readFileSync, writeFileSync } = require("node:fs");
const { join, resolve } = require("node:path");
// The parser the review reads the changelog with (lib/review/changelog.ts), from the build `npm run build` made.
const { parseChangelog } = require(join(__dirname, "..", "..", "dist", "lib", "review", "changelog.js"));

/** SemVer without a "v": the catalog's version rule, and the component's toolkit_version input pattern. */
const RELEASE_TAG = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
/** Keep a Changelog's date, as CHANGELOG.md writes it. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** The part every release has (CHANGELOG.md's preamble). */
const RUNNING_FLEETS_PART = /^### For running fleets$/m;

/** The problems that stop the release of `tag`, and the notes when there are none. */
function releaseProblems(tag, packageVersion, changelogText) {
  if (!RELEASE_TAG.test(tag)) {
    // The other checks would only repeat the tag back: this one is the fix.
    const problem = `tag "${tag}" is not a release version: expected X.Y.Z or X.Y.Z-prerelease, without a "v" (the CI/CD catalog takes the tag as the version)`;
    return { problems: [problem], notes: "" };
  }
  const problems = [];
  if (packageVersion !== tag) {
    problems.push(`package.json has version "${packageVersion}", the tag is "${tag}": set it with \`npm version --no-git-tag-version ${tag}\`, merge, and tag that commit`);
  }
  const entry = parseChangelog(changelogText).find((candidate) => candidate.version === tag);
  if (!entry) {
    problems.push(`CHANGELOG.md has no section "## [${tag}] - <date>": rename "## [Unreleased]" to it, with the release date`);
  } else {
    if (entry.date === undefined || !ISO_DATE.test(entry.date)) {
      problems.push(`CHANGELOG.md's section for ${tag} has no date: expected "## [${tag}] - YYYY-MM-DD", got a date of ${JSON.stringify(entry.date ?? "")}`);
    }
    if (!RUNNING_FLEETS_PART.test(entry.body)) {
      problems.push(`CHANGELOG.md's section for ${tag} has no "### For running fleets" part (what applying it replaces, creates and newly requires)`);
    }
  }
  return { problems, notes: entry ? `${entry.body}\n` : "" };
}

function main(argv) {
  const [tag, notesFile] = argv;
  if (tag === undefined || notesFile === undefined) {
    process.stderr.write("usage: node ci/release/release-check.js <tag> <notes file>\n");
    return 2;
  }
  let packageVersion;
  let changelogText;
  try {
    packageVersion = JSON.parse(readFileSync("package.json", "utf8")).version;
    changelogText = readFileSync("CHANGELOG.md", "utf8");
  } catch (error) {
    process.stderr.write(`release-check: run it in the checkout being released: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const { problems, notes } = releaseProblems(tag, packageVersion, changelogText);
  if (problems.length > 0) {
    for (const problem of problems) process.stderr.write(`release-check: ${problem}\n`);
    return 2;
  }
  writeFileSync(notesFile, notes);
  process.stdout.write(`release-check: runner-fleet ${tag}: package.json and CHANGELOG.md agree; release notes in ${resolve(notesFile)}\n`);
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = { releaseProblems };
