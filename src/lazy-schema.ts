// Module-level zod schemas built at their first use rather than when their module loads, and zod itself loaded
// at that first use.
//
// Building a zod schema costs microseconds, and SCV has hundreds of them: built when their modules load, they
// were most of the 30 ms between a nested SCV child's spawn and its first model request, though that request
// parses only a few of them (and, with the fast request check and the config check cache, none). Loading zod
// costs about a millisecond more. `lazySchema((z) => z.object(…))` stands for the schema itself (every
// property, method, `instanceof` and `z.infer` works as on the real one) and builds it on the first touch.
// Modules import zod's types only; code that needs zod's functions outside a schema calls `zod()`.
import type { ZodType, z as Zod } from "zod";

type ZodNamespace = typeof Zod;
let loaded: ZodNamespace | undefined;

/** zod, loaded at the first call: a synchronous require, so a schema can be built wherever it is first used. */
export function zod(): ZodNamespace {
  return (loaded ??= (require("zod") as typeof import("zod")).z);
}

/** Hands zod over where `require` does not exist: the build-time macros (tools/json-schemas.ts, protocol/request-schemas.ts). */
export function useZod(z: ZodNamespace): void {
  loaded ??= z;
}

export function lazySchema<T extends ZodType>(build: (z: ZodNamespace) => T): T {
  let real: T | undefined;
  let building = false;
  const get = (): T => {
    if (!real) {
      // A schema that refers to itself must do so through z.lazy, which defers the reference to parse time.
      if (building) throw new Error("a lazySchema was used while it was being built; write the recursive reference as z.lazy(() => Schema)");
      building = true;
      try {
        real = build(zod());
      } finally {
        building = false;
      }
      // Metadata (`.describe()`, `.meta()`) is keyed by the instance: the stand-in must find it too, for
      // z.toJSONSchema and the protocol docs.
      const registry = zod().globalRegistry;
      const meta = registry.get(real);
      if (meta) registry.add(proxy as T, meta);
    }
    return real;
  };
  const proxy: T = new Proxy(Object.create(null) as T, {
    get: (_t, key) => Reflect.get(get(), key),
    set: (_t, key, value) => Reflect.set(get(), key, value),
    has: (_t, key) => Reflect.has(get(), key),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Reflect.getOwnPropertyDescriptor(get(), key);
      // A proxy may only report a property as non-configurable if its target has it so; the target is empty.
      return d && { ...d, configurable: true };
    },
    defineProperty: (_t, key, d) => Reflect.defineProperty(get(), key, d),
    deleteProperty: (_t, key) => Reflect.deleteProperty(get(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(get()),
  });
  return proxy;
}
