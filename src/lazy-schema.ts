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

/** What a stand-in holds: how to build its schema, and the schema once built. */
interface Pending {
  build: (z: ZodNamespace) => ZodType;
  real?: ZodType;
  building?: boolean;
  proxy?: ZodType;
}

function real(p: Pending): ZodType {
  if (p.real) return p.real;
  // A schema that refers to itself must do so through z.lazy, which defers the reference to parse time.
  if (p.building) throw new Error("a lazySchema was used while it was being built; write the recursive reference as z.lazy(() => Schema)");
  p.building = true;
  try {
    p.real = p.build(zod());
  } finally {
    p.building = false;
  }
  // Metadata (`.describe()`, `.meta()`) is keyed by the instance: the stand-in must find it too, for
  // z.toJSONSchema and the protocol docs.
  const registry = zod().globalRegistry;
  const meta = registry.get(p.real);
  if (meta) registry.add(p.proxy!, meta);
  return p.real;
}

// One handler for every stand-in (module load creates hundreds of them): each trap forwards to the built schema.
const forward: ProxyHandler<Pending> = {
  get: (p, key) => Reflect.get(real(p), key),
  set: (p, key, value) => Reflect.set(real(p), key, value),
  has: (p, key) => Reflect.has(real(p), key),
  ownKeys: (p) => Reflect.ownKeys(real(p)),
  getOwnPropertyDescriptor: (p, key) => {
    const d = Reflect.getOwnPropertyDescriptor(real(p), key);
    // A proxy may only report a property as non-configurable if its target has it so; the target is not it.
    return d && { ...d, configurable: true };
  },
  defineProperty: (p, key, d) => Reflect.defineProperty(real(p), key, d),
  deleteProperty: (p, key) => Reflect.deleteProperty(real(p), key),
  getPrototypeOf: (p) => Reflect.getPrototypeOf(real(p)),
};

export function lazySchema<T extends ZodType>(build: (z: ZodNamespace) => T): T {
  const pending: Pending = { build };
  pending.proxy = new Proxy(pending, forward) as unknown as ZodType;
  return pending.proxy as T;
}
