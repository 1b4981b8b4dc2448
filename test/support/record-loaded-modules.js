"use strict";
/**
 * Preloaded into a command's process (`node --require <this file> bin/<command> ...`, or required first
 * by a `node -e` script; never into a test's own process): at exit, prints on stderr which of the GitLab client's Node built-ins the
 * process asked for, then which cloud SDK or GitLab client modules it loaded from node_modules.
 *
 * GitLab's client (gitbeaker and undici, its HTTP client) leaves no file in require.cache, being
 * bundled: what shows it loaded is the Node built-ins only it needs (HTTP, HTTP/2, zlib), recorded
 * as the process asks for them. The cloud SDKs stay outside the bundles, so require.cache shows them.
 */
const Module = require("node:module");

/** Built-ins undici and gitbeaker load as they initialize, and no command needs without them. */
const GITLAB_CLIENT_BUILTINS = ["http", "http2", "zlib"];
const SDKS = /[\\/]node_modules[\\/](@gitbeaker|@aws-sdk|@google-cloud)[\\/]/;

const asked = new Set();
const load = Module._load;
Module._load = function (request, ...rest) {
  if (Module.isBuiltin(request)) asked.add(request.replace(/^node:/, ""));
  return load.call(this, request, ...rest);
};
process.on("exit", () => {
  process.stderr.write(`GitLab client built-ins: ${JSON.stringify(GITLAB_CLIENT_BUILTINS.filter((name) => asked.has(name)))}\n`);
  process.stderr.write(`SDK modules loaded: ${JSON.stringify(Object.keys(require.cache).filter((file) => SDKS.test(file)))}\n`);
});
