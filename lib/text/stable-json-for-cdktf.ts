/**
 * What `json-stable-stringify` is to cdktf where this toolkit runs: the command bundles
 * (build/bundle-commands.js) and the tests (jest.config.js moduleNameMapper) both hand cdktf this
 * function. A call with only `space` (every call cdktf makes) is written by ./stable-json.ts, the same
 * text faster; any other call goes to the real package, loaded on first use.
 */
import { stableStringify, type StableStringifyOptions } from "./stable-json";

type Stringify = (value: unknown, options?: unknown) => string | undefined;

export function stableJsonForCdktf(loadReal: () => Stringify): Stringify {
  let real: Stringify | undefined;
  return (value, options) => (onlySpace(options) ? stableStringify(value, options as StableStringifyOptions | undefined) : (real ??= loadReal())(value, options));
}

function onlySpace(options: unknown): boolean {
  if (options === undefined) return true;
  if (typeof options !== "object" || options === null) return false;
  return Object.keys(options).every((key) => key === "space") && ["undefined", "string", "number"].includes(typeof (options as { space?: unknown }).space);
}
