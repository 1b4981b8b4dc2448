/**
 * The working tree listed as `git ls-tree -r` would list it committed (lib/review/working-tree-code.ts): the
 * key review's compile cache finds a ref's compiled code by, so a listing that is wrong serves wrong code.
 */
import { chmodSync, symlinkSync } from "node:fs";
import { workingTreeListing } from "../../lib/review/working-tree-code";
import { createFakeSynthRepo, type TempRepo } from "./review-temp-repo";

const committedListing = (repo: TempRepo) => repo.git("ls-tree", "-r", "--full-tree", "HEAD").split("\n").filter(Boolean);

describe("workingTreeListing", () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = createFakeSynthRepo({ "cell-1": "machine_type: e2-small\n" });
  });
  afterEach(() => repo.cleanup());

  it("lists a clean working tree as its commit", async () => {
    expect(await workingTreeListing(repo.dir)).toEqual(committedListing(repo));
  });

  it("lists edited, deleted, new, staged and executable files as the commit of them would", async () => {
    repo.write("lib/shared.txt", "v2\n");
    repo.remove("README.md");
    repo.write("stacks/extra.js", "module.exports = 1;\n");
    repo.write("lib/staged.txt", "staged\n");
    repo.git("add", "lib/staged.txt");
    repo.write("lib/staged.txt", "staged, then edited\n");
    chmodSync(`${repo.dir}/stacks/main.js`, 0o755);
    const listing = await workingTreeListing(repo.dir);
    expect(listing).not.toEqual(committedListing(repo));

    repo.commit("what was on disk");
    expect(listing).toEqual(committedListing(repo));
  });

  it("lists nothing when the compiler could read a file git ignores, or a changed file is a symlink", async () => {
    // dist/ (the output) and node_modules (the tool's lockfile keys it) are ignored and outside the question.
    repo.write("dist/stacks/main.js", "old output\n");
    expect(await workingTreeListing(repo.dir)).toEqual(committedListing(repo));

    repo.write(".gitignore", `${repo.read(".gitignore")}stacks/local.js\n`);
    repo.write("stacks/local.js", "module.exports = 'only on this machine';\n");
    expect(await workingTreeListing(repo.dir)).toBeUndefined();
    repo.remove("stacks/local.js");

    symlinkSync("shared.txt", `${repo.dir}/lib/link.txt`);
    expect(await workingTreeListing(repo.dir)).toBeUndefined();
  });

  it("lists nothing when git does not compare a file with the disk (assume-unchanged)", async () => {
    repo.git("update-index", "--assume-unchanged", "lib/shared.txt");
    repo.write("lib/shared.txt", "changed, and git does not look\n");
    expect(await workingTreeListing(repo.dir)).toBeUndefined();
  });

  it("lists nothing when tsconfig.json extends another (its include may be elsewhere)", async () => {
    repo.write("tsconfig.json", JSON.stringify({ extends: "./base.json" }));
    expect(await workingTreeListing(repo.dir)).toBeUndefined();
  });
});
