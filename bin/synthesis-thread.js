"use strict";
/**
 * A synthesis worker thread (stacks/synthesis-threads.ts starts it): stacks/synthesize-thread.ts, run from
 * dist/bundle/synthesis.js as bin/* run their commands, with V8's code cache (bin/load-command.js).
 */
require("./load-command").loadBundle(require("node:path").join(__dirname, "..", "dist", "bundle", "synthesis.js"));
