/**
 * cdktf's resolve, without its walk over values that provably hold no token.
 *
 * cdktf (0.21, lib/tokens/private/resolve.js) resolves every value of a stack the same way: a context
 * (closures, a copy of the key path) per string, number, key and element, two token regexes over every
 * string (the startup scripts above all), and an ArrayBuffer per number. Most of a stack is plain
 * text and numbers, which that walk returns as they are. Here, a value that could not change is
 * returned without it, and anything else (a token, a value cdktf would refuse) goes to cdktf's own
 * resolve at the same key path, with the same options, in the same order:
 * - a string, unless it contains "TfToken[" (the common part of the string, list and map token
 *   markers, private/encoding.js BEGIN_*_TOKEN_MARKER), is one of the map token values cdktf refuses
 *   in a string (token.js STRING_MAP_TOKEN_VALUE, ANY_MAP_TOKEN_VALUE), or holds a number-token-shaped
 *   part (encoding.js NUMBER_TOKEN_REGEX) whose value could be an encoded number;
 * - a number whose magnitude is below the smallest encoded one (encoding.js createTokenDouble: the top
 *   16 bits 0xfdff, or 0xfbff for a list, put it at or above 2^960), other than
 *   Token.NUMBER_MAP_TOKEN_VALUE;
 * - booleans, null, undefined (which cdktf drops from objects and arrays, as here);
 * - arrays whose elements are none of a list token (a "#{TfToken[" string, a 0xfbff number), and
 *   objects that are not tokens (no `resolve` method, token.js Tokenization.isResolvable), not
 *   constructs and whose keys are plain strings as above: their elements and values, each in turn.
 * The resolved value is cdktf's, key for key and byte for byte (test/stacks/plain-value-resolve.test.ts
 * against cdktf's resolve; test/stacks/synthesize.test.ts over whole stacks).
 */
import { Token } from "cdktf";
import type { IConstruct } from "constructs";
import { resolve as cdktfResolve } from "cdktf/lib/tokens/private/resolve";
import { DefaultTokenResolver, StringConcat } from "cdktf/lib/tokens/resolvable";

/** The token markers' common part: "${TfToken[", "#{TfToken[" and "&{TfToken[" (encoding.js). */
const TOKEN_MARKER = "TfToken[";
const LIST_TOKEN_MARKER = "#{TfToken[";
/** encoding.js NUMBER_TOKEN_REGEX: where cdktf looks for a number token written into a string. */
const NUMBER_TOKEN_SHAPE = /[-|\d|.\+]+(e[-|\d|.|e|E|\+]+)/g;
/** No encoded number is smaller in magnitude: a list token's top bits (0xfbff) give 2^960, a number's (0xfdff) 2^992. */
const SMALLEST_ENCODED_NUMBER = 2 ** 960;
/** resolve.js: deeper than this, cdktf takes the value for a cycle and throws. */
const MAX_DEPTH = 200;
/** What _tokens.js resolves with: a DefaultTokenResolver over a StringConcat, neither of which keeps state. */
const RESOLVER = new DefaultTokenResolver(new StringConcat());
const { STRING_MAP_TOKEN_VALUE, ANY_MAP_TOKEN_VALUE, NUMBER_MAP_TOKEN_VALUE } = Token;

/** `cdktf/lib/_tokens`'s resolve(scope, value): the same result, the same errors. */
export function resolveSkippingPlainValues(scope: IConstruct, value: unknown): unknown {
  // The key path as cdktf's contexts carry it (resolve.js makeContext): its errors name it, its depth guard counts it.
  const path: string[] = [];
  const byCdktf = (inner: unknown) => cdktfResolve(inner, { scope, preparing: false, resolver: RESOLVER, prefix: [...path] });

  function resolveAt(inner: unknown): unknown {
    // Deeper than cdktf allows (its guard against cycles): cdktf's error.
    if (path.length > MAX_DEPTH) return byCdktf(inner);
    switch (typeof inner) {
      case "undefined":
      case "boolean":
        return inner;
      case "string":
        return isPlainString(inner) ? inner : byCdktf(inner);
      case "number":
        return isPlainNumber(inner) ? inner : byCdktf(inner);
      case "object":
        if (inner === null) return null;
        if (Array.isArray(inner)) return resolveArray(inner);
        if (inner instanceof Date || !isPlainObject(inner)) return byCdktf(inner);
        return resolveObject(inner as Record<string, unknown>);
      default:
        return byCdktf(inner);
    }
  }

  function resolveArray(array: unknown[]): unknown {
    // resolve.js: a list token among the elements makes the whole array one reference.
    if (array.some((element) => (typeof element === "string" ? element.includes(LIST_TOKEN_MARKER) : typeof element === "number" && !isPlainNumber(element)))) return byCdktf(array);
    const resolved: unknown[] = [];
    for (let index = 0; index < array.length; index++) {
      path.push(`${index}`);
      const element = resolveAt(array[index]);
      path.pop();
      if (element !== undefined) resolved.push(element);
    }
    return resolved;
  }

  function resolveObject(object: Record<string, unknown>): unknown {
    const keys = Object.keys(object);
    // resolve.js: a map token among the keys makes the whole object one reference; a key holding a token resolves to its value.
    if (!keys.every(isPlainString)) return byCdktf(object);
    const resolved: Record<string, unknown> = {};
    for (const key of keys) {
      path.push(key);
      const value = resolveAt(object[key]);
      path.pop();
      if (value !== undefined) resolved[key] = value;
    }
    return resolved;
  }

  return resolveAt(value);
}

/** A string cdktf's resolve returns as it is. */
function isPlainString(text: string): boolean {
  if (text.includes(TOKEN_MARKER) || text === STRING_MAP_TOKEN_VALUE || text === ANY_MAP_TOKEN_VALUE) return false;
  // resolve.js splits the string at each number-shaped part and replaces those that are number tokens
  // (TokenMap.lookupNumberToken of parseFloat); a string of none comes back joined as it was.
  NUMBER_TOKEN_SHAPE.lastIndex = 0;
  for (let match = NUMBER_TOKEN_SHAPE.exec(text); match !== null; match = NUMBER_TOKEN_SHAPE.exec(text)) {
    if (!isPlainNumber(parseFloat(match[0]))) return false;
  }
  return true;
}

/** A number no token is encoded in (NaN and the infinities included, which are not plain here). */
function isPlainNumber(value: number): boolean {
  return Math.abs(value) < SMALLEST_ENCODED_NUMBER && value !== NUMBER_MAP_TOKEN_VALUE;
}

/** Not a token (Tokenization.isResolvable), not a construct (resolve.js isConstruct), no map token among its keys (checked by the caller). */
function isPlainObject(value: object): boolean {
  const candidate = value as { resolve?: unknown; _children?: unknown; _metadata?: unknown };
  return typeof candidate.resolve !== "function" && !(candidate._children !== undefined && candidate._metadata !== undefined);
}
