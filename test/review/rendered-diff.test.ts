import { diffRenderedFiles } from "../../lib/review/rendered-diff";

const config = (concurrent: number, slot: number) => `# manager ${slot}\nconcurrent = ${concurrent}\ncheck_interval = 3\n`;

describe("diffRenderedFiles", () => {
  it("shows a unified diff, once for the files that share the very same change", () => {
    const before = new Map([
      ["spot/manager-0/config.toml", config(50, 0)],
      ["spot/manager-1/config.toml", config(50, 1)],
      ["spot/worker-startup.sh", "#!/bin/bash\n"],
    ]);
    const after = new Map([
      ["spot/manager-0/config.toml", config(51, 0)],
      ["spot/manager-1/config.toml", config(51, 1)],
      ["spot/worker-startup.sh", "#!/bin/bash\n"],
    ]);
    expect(diffRenderedFiles(before, after)).toEqual([
      { paths: ["spot/manager-0/config.toml"], status: "changed", patch: ["@@ -1,3 +1,3 @@", " # manager 0", "-concurrent = 50", "+concurrent = 51", " check_interval = 3"], omittedLines: 0 },
      { paths: ["spot/manager-1/config.toml"], status: "changed", patch: ["@@ -1,3 +1,3 @@", " # manager 1", "-concurrent = 50", "+concurrent = 51", " check_interval = 3"], omittedLines: 0 },
    ]);
    const shared = diffRenderedFiles(
      new Map([["a/config.toml", "x = 1\n"], ["b/config.toml", "x = 1\n"]]),
      new Map([["a/config.toml", "x = 2\n"], ["b/config.toml", "x = 2\n"]]),
    );
    expect(shared).toEqual([{ paths: ["a/config.toml", "b/config.toml"], status: "changed", patch: ["@@ -1,1 +1,1 @@", "-x = 1", "+x = 2"], omittedLines: 0 }]);
  });

  it("lists added and removed files without their whole content", () => {
    const changes = diffRenderedFiles(new Map([["old/config.toml", "x = 1\n"]]), new Map([["new/config.toml", "x = 2\n"]]));
    expect(changes).toEqual([
      { paths: ["new/config.toml"], status: "added", patch: [], omittedLines: 0 },
      { paths: ["old/config.toml"], status: "removed", patch: [], omittedLines: 0 },
    ]);
  });

  it("reads a file found byte for byte under another path as moved (a renamed shard's), not removed and added", () => {
    const before = new Map([
      ["spot-amd64/manager-0/config.toml", "concurrent = 50\n"],
      ["spot-amd64/worker-startup.sh", "#!/bin/bash\n"],
    ]);
    const after = new Map([
      ["spot/manager-0/config.toml", "concurrent = 50\n"],
      ["spot/worker-startup.sh", "#!/bin/bash\necho changed\n"],
    ]);

    expect(diffRenderedFiles(before, after)).toEqual([
      { paths: ["spot-amd64/manager-0/config.toml → spot/manager-0/config.toml"], status: "moved", patch: [], omittedLines: 0 },
      { paths: ["spot-amd64/worker-startup.sh"], status: "removed", patch: [], omittedLines: 0 },
      { paths: ["spot/worker-startup.sh"], status: "added", patch: [], omittedLines: 0 },
    ]);
  });

  it("keeps a long patch readable, counting what it leaves out", () => {
    const many = (value: number) => Array.from({ length: 400 }, (_, index) => `line${index} = ${value}\n`).join("");
    const [change] = diffRenderedFiles(new Map([["f", many(1)]]), new Map([["f", many(2)]]));
    expect(change.patch).toHaveLength(150);
    expect(change.omittedLines).toBe(801 - 150);
  });

  it("redacts a token that slipped into a rendered file", () => {
    const token = `glrt-${"a1b2c3d4e5".repeat(2)}`;
    const [change] = diffRenderedFiles(new Map([["f", 'token = "x"\n']]), new Map([["f", `token = "${token}"\n`]]));
    expect(change.patch.join("\n")).not.toContain(token);
    expect(change.patch.join("\n")).toContain("glrt-");
  });
});
