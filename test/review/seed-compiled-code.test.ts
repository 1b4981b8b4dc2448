/**
 * ./seed-compiled-code.ts hands the review suites this checkout's dist/ as a copy's compiled code only
 * when dist/ is newer than every source it is compiled from: a stale dist/ must never stand in for a
 * compile.
 */
import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtFromTheseSources } from "./seed-compiled-code";
import { createTempRepo, type TempRepo } from "./review-temp-repo";

describe("whether a checkout's dist/ is built from its sources", () => {
  let repo: TempRepo;
  const BUILT = new Date("2026-01-02T10:00:00Z");
  const BEFORE = new Date("2026-01-02T09:00:00Z");
  const AFTER = new Date("2026-01-02T11:00:00Z");
  const touch = (path: string, when: Date) => utimesSync(join(repo.dir, path), when, when);
  const output = (path: string, when = BUILT) => {
    mkdirSync(join(repo.dir, path, ".."), { recursive: true });
    writeFileSync(join(repo.dir, path), "// compiled\n");
    touch(path, when);
  };

  beforeEach(() => {
    repo = createTempRepo({
      "tsconfig.json": JSON.stringify({ compilerOptions: { outDir: "dist", rootDir: "." }, include: ["index.ts", "lib/**/*.ts"], exclude: ["lib/stock"] }),
      "index.ts": "export {};\n",
      "lib/a.ts": "export const a = 1;\n",
      "lib/types.d.ts": "export {};\n",
      "lib/stock/old.ts": "export {};\n",
      "data/prices.json": "{}\n",
      "examples/app.ts": "export {};\n",
    });
    for (const path of ["tsconfig.json", "index.ts", "lib/a.ts", "lib/types.d.ts", "lib/stock/old.ts", "data/prices.json", "examples/app.ts"]) touch(path, BEFORE);
    output("dist/index.js");
    output("dist/lib/a.js");
    output("dist/data/prices.json");
  });
  afterEach(() => repo.cleanup());

  it("is when every output is newer than every source (declarations, excluded and other files aside)", () => {
    touch("examples/app.ts", AFTER);
    touch("lib/types.d.ts", AFTER);
    touch("lib/stock/old.ts", AFTER);
    expect(builtFromTheseSources(repo.dir)).toBe(true);
  });

  it("is not when a source, an imported JSON file or tsconfig.json changed after the build", () => {
    for (const path of ["lib/a.ts", "data/prices.json", "tsconfig.json"]) {
      touch(path, AFTER);
      expect([path, builtFromTheseSources(repo.dir)]).toEqual([path, false]);
      touch(path, BEFORE);
    }
    expect(builtFromTheseSources(repo.dir)).toBe(true);
  });

  it("is not when a source has no output, or an output is older than the build", () => {
    output("dist/lib/a.js", BEFORE);
    touch("index.ts", new Date("2026-01-02T09:30:00Z"));
    expect(builtFromTheseSources(repo.dir)).toBe(false);
    output("dist/lib/a.js");
    rmSync(join(repo.dir, "dist", "index.js"));
    expect(builtFromTheseSources(repo.dir)).toBe(false);
  });

  it("is not for a tsconfig.json whose include it does not read", () => {
    writeFileSync(join(repo.dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { outDir: "dist", rootDir: "." }, include: ["lib/*.ts"] }));
    touch("tsconfig.json", BEFORE);
    expect(builtFromTheseSources(repo.dir)).toBe(false);
  });
});
