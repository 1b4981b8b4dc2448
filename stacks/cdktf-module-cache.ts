/**
 * The compiled modules (a synthesis thread, the cdktf app entry, the bench) give cdktf what the command
 * bundles' plugins give theirs (build/bundle-commands.js): a module put in node's module cache where
 * cdktf's own `require(name)` looks, before cdktf loads, is the one cdktf gets. Not in a bundle
 * (dist/bundle/), whose cdktf has its stand-ins built in. Under jest (the TypeScript sources) the entry
 * changes nothing: jest's module registry is its own (jest.config.js maps archiver there).
 */
import Module from "node:module";
import { basename, dirname, join } from "node:path";

/**
 * Puts `exports(real)` where cdktf's `require(name)` from its `lib/<fromDir>` resolves; `real()` loads
 * the package itself in its place. Does nothing where the package is not installed where cdktf looks
 * (cdktf's own require then fails as it would have) or is already loaded.
 */
export function putInCdktfModuleCache(name: string, fromDir: string, exports: (real: () => unknown) => unknown): void {
  // Inside a command bundle, where this module is not in stacks/: a dry run would pay for the resolving below (~1 ms) for nothing.
  if (basename(__dirname) !== "stacks") return;
  let path: string;
  try {
    path = require.resolve(name, { paths: [join(dirname(require.resolve("cdktf")), fromDir)] });
  } catch {
    return;
  }
  if (require.cache[path]) return;
  const standIn = new Module(path);
  standIn.filename = path;
  standIn.loaded = true;
  standIn.exports = exports(() => {
    // Out of the cache first, so that require loads the real module (and caches it) in the stand-in's place.
    delete require.cache[path];
    return require(path);
  });
  require.cache[path] = standIn;
}
