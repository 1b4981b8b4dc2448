/**
 * Under jest, `archiver` is the stand-in that loads the real package on first use
 * (test/support/archiver-on-first-use.js), as in the command bundles: it must be the real thing to
 * whoever calls it.
 */
import { isProxy } from "node:util/types";

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
