/**
 * The documentation holds together: every relative link of the README and docs/ reaches a file and,
 * with an anchor, a heading of it; every docs page or README section that code, a command's --help
 * or a message names exists. Moving a section without its references fails here, not for a reader.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { REPO_ROOT } from "../support/cli";
import { headingAnchors, markdownFilesUnder, markdownLinks, sectionNames } from "../support/markdown-files";

const DOCUMENTS = ["README.md", "CHANGELOG.md", ...markdownFilesUnder(join(REPO_ROOT, "docs")).map((file) => relative(REPO_ROOT, file))];
/** Where code, help texts, messages, pipelines and boot scripts live; each may name a docs page. */
const CODE_DIRS = ["app", "lib", "bin", "build", "ci", "templates", "scripts", "stacks", "constructs", "tools", "bench", "models", "examples"];

function read(file: string): string {
  return readFileSync(join(REPO_ROOT, file), "utf8");
}

function filesUnder(dir: string): string[] {
  if (!existsSync(join(REPO_ROOT, dir))) return [];
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : filesUnder(path);
    return /\.(ts|js|sh|yml|yaml|hbs|json|md)$|^[^.]+$/.test(entry.name) ? [path] : [];
  });
}

/** What is wrong with one link of a document, or undefined when it resolves. */
function brokenLink(document: string, target: string): string | undefined {
  if (/^[a-z][a-z+.-]*:/i.test(target)) return undefined;
  const [path, anchor] = target.split("#", 2);
  const file = path === "" ? document : relative(REPO_ROOT, join(REPO_ROOT, dirname(document), path));
  if (!existsSync(join(REPO_ROOT, file))) return `${file} does not exist`;
  if (anchor === undefined || statSync(join(REPO_ROOT, file)).isDirectory()) return undefined;
  return headingAnchors(read(file)).has(anchor) ? undefined : `${file} has no heading with the anchor #${anchor}`;
}

describe("the documentation's links", () => {
  it("finds the documents it checks", () => {
    expect(DOCUMENTS).toEqual(expect.arrayContaining(["README.md", "docs/README.md", "docs/guide/models.md", "docs/security.md", "docs/reference/model.md"]));
  });

  it.each(DOCUMENTS)("%s: every relative link reaches a file and heading", (document) => {
    const broken = markdownLinks(read(document)).flatMap(({ line, target }) => {
      const problem = brokenLink(document, target);
      return problem === undefined ? [] : [`${document}:${line}: (${target}): ${problem}`];
    });
    expect(broken).toEqual([]);
  });

  it("fails when a link names a missing file or heading", () => {
    expect(brokenLink("docs/README.md", "guide/nowhere.md")).toBe("docs/guide/nowhere.md does not exist");
    expect(brokenLink("docs/README.md", "guide/models.md#no-such-heading")).toBe("docs/guide/models.md has no heading with the anchor #no-such-heading");
    expect(brokenLink("docs/README.md", "guide/models.md#a-model-walked-through")).toBeUndefined();
  });
});

/** Each docs page (with its anchor or quoted section) and README section a file of code names. */
function namedSections(file: string): { file: string; reference: string; problem: string | undefined }[] {
  const text = read(file);
  // This repository's pages only: gitlab-runner's own docs/configuration/... and /work/shared/docs/ are cited too.
  const docs = [...text.matchAll(/(?<![\w/])docs\/((?:guide|operations|development|reference)\/[\w.-]+?\.md|README\.md|security\.md)(?:#([\w-]+)|,? "([^"]+)")?/g)].map((match) => {
    const page = `docs/${match[1]}`;
    if (!existsSync(join(REPO_ROOT, page))) return { file, reference: match[0], problem: `${page} does not exist` };
    if (match[2] !== undefined && !headingAnchors(read(page)).has(match[2])) return { file, reference: match[0], problem: `${page} has no anchor #${match[2]}` };
    if (match[3] !== undefined && !sectionNames(read(page)).has(match[3])) return { file, reference: match[0], problem: `${page} has no section "${match[3]}"` };
    return { file, reference: match[0], problem: undefined };
  });
  // A generated models repository's files name its own README (templates/init/README.md.hbs), not this one.
  const readme = file.startsWith(join("templates", "init")) ? "templates/init/README.md.hbs" : "README.md";
  const sections = [...text.matchAll(/\bREADME(?:\.md)?,? \(?"([^"]+)"/g)].map((match) => ({
    file,
    reference: match[0],
    problem: sectionNames(read(readme)).has(match[1]) ? undefined : `${readme} has no section "${match[1]}"`,
  }));
  return [...docs, ...sections];
}

describe("the documentation that code, help texts and messages name", () => {
  const references = CODE_DIRS.flatMap(filesUnder).flatMap(namedSections);

  it("finds the references it checks", () => {
    expect(references.map((reference) => reference.reference)).toEqual(expect.arrayContaining(["docs/operations/simulate.md", 'docs/operations/workers.md, "Spot workers and retries"']));
  });

  it("every named page and section exists", () => {
    expect(references.filter((reference) => reference.problem !== undefined).map((reference) => `${reference.file}: ${reference.reference}: ${reference.problem}`)).toEqual([]);
  });
});
