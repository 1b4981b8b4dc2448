/**
 * Under jest, `archiver` is the stand-in that loads the real package on first use
 * (test/support/archiver-on-first-use.js), as in the command bundles: it must be the real thing to
 * whoever calls it. A synthesis thread puts its own stand-in in node's module cache (stacks/archiver-on-first-use.ts).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { isProxy } from "node:util/types";
import { PROJECT_ROOT } from "../../lib/files/project-root";

test("cdktf's archiver is the stand-in, and zips as the real one does", async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const archiver = require("archiver") as (format: string) => NodeJS.ReadableStream & { append(data: Buffer, entry: { name: string }): void; finalize(): Promise<void> };
  expect(isProxy(archiver)).toBe(true);

  const archive = archiver("zip");
  const chunks: Buffer[] = [];
  archive.on("data", (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => archive.on("end", resolve));
  archive.append(Buffer.from("hello from a stack asset\n"), { name: "asset.txt" });
  await archive.finalize();
  await ended;

  const zip = Buffer.concat(chunks);
  expect(zip.subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
  expect(zip.includes(Buffer.from("asset.txt"))).toBe(true);
});

/** The compiled modules' stand-in (stacks/archiver-on-first-use.ts, put in place by importing it), in a child node: outside jest's module registry. */
const THREAD_STAND_IN = `
  require(process.argv[1]);
  require("cdktf");
  const loadedWithCdktf = Object.keys(require.cache).filter((file) => file.includes("/archiver/")).length;
  // What cdktf's lib/private/fs.js got for require("archiver").
  const archiver = require(require.resolve("archiver", { paths: [require("node:path").dirname(require.resolve("cdktf/lib/private/fs.js"))] }));
  const archive = archiver("zip");
  const chunks = [];
  archive.on("data", (chunk) => chunks.push(chunk));
  archive.on("end", () => {
    const zip = Buffer.concat(chunks);
    console.log(JSON.stringify({ loadedWithCdktf, zip: zip.subarray(0, 4).toString("hex"), named: zip.includes(Buffer.from("asset.txt")) }));
  });
  archive.append(Buffer.from("hello from a stack asset\\n"), { name: "asset.txt" });
  archive.finalize();
`;

test("the compiled modules' cdktf (a synthesis thread's, the cdktf app's) loads without archiver's modules, and archiver zips as the real one does when called", () => {
  const run = spawnSync(process.execPath, ["-e", THREAD_STAND_IN, join(PROJECT_ROOT, "dist", "stacks", "archiver-on-first-use.js")], { encoding: "utf8", cwd: PROJECT_ROOT });
  expect(run.stderr).toBe("");
  // THEN only the stand-in's own entry is in the cache until the first call, and the call zips
  expect(JSON.parse(run.stdout)).toEqual({ loadedWithCdktf: 1, zip: "504b0304", named: true });
});
