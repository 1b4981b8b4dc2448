"use strict";
/**
 * esbuild's keepNames (build/bundle-commands.js) gives every function and class declaration a
 * `__name(fn, "fn")` call that sets its `name` property. Where esbuild renamed a declaration to avoid
 * a clash between bundled modules (`Construct17`, `resolve13`), that call is what keeps the name as
 * written, and names reach errors (commander's `this.name = this.constructor.name`) and cdktf's
 * metadata. Where the declaration kept its own name, the call sets the name the declaration already
 * has (a function or class declaration's `name` is its identifier, with the same property attributes
 * __name gives it), and it runs each time the enclosing function runs: cdktf's resolve() declares
 * makeContext on every call, thousands of times a synth. Those calls were ~5% of a dry run's instructions.
 *
 * So `__name(x,"x")` becomes `x`, padded with spaces to the same length: every other character keeps
 * its line and column, and the source map stays exact. A call naming something else
 * (`__name(resolve13,"resolve")`, `__name(this,"Foo")`, `__name(() => ..., "f")`) is left as it is.
 */

/** `__name(<identifier>,"<string>")`, not preceded by a character that would make it a property or another name. */
const NAME_CALL = /(?<![\w$.])__name\(([A-Za-z_$][\w$]*),"([\w$]*)"\)/g;

/** The bundle's text without the redundant __name calls, the same length as `source`. */
function dropRedundantNames(source) {
  return source.replace(NAME_CALL, (call, identifier, name) => (identifier === name ? identifier.padEnd(call.length, " ") : call));
}

module.exports = { dropRedundantNames };
