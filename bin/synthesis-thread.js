"use strict";
/**
 * A synthesis worker thread (stacks/synthesis-threads.ts starts it): stacks/synthesize-thread.ts, run from
 * dist/bundle/synthesis.js as bin/* run their commands, with V8's code cache (bin/load-command.js).
 */
const { loadBundle, SYNTHESIS_BUNDLE } = require("./load-command");
loadBundle(SYNTHESIS_BUNDLE);
