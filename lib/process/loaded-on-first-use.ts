/**
 * A stand-in for a module that is loaded at start-up but called only on some paths: calls, `new`,
 * properties and `in` all reach the real module, loaded on the first of them. The command bundles'
 * stand-ins (build/bundle-commands.js), the synthesis threads' archiver (stacks/archiver-on-first-use.ts)
 * and the tests' (test/support/archiver-on-first-use.js) are this one.
 */
export function loadedOnFirstUse(load: () => unknown): unknown {
  let real: unknown;
  const module = (): Function => (real ??= load()) as Function;
  return new Proxy(function () {}, {
    apply: (_target, self, args) => Reflect.apply(module(), self, args),
    construct: (_target, args) => Reflect.construct(module(), args),
    get: (_target, key) => (module() as unknown as Record<string | symbol, unknown>)[key],
    has: (_target, key) => key in module(),
  });
}
