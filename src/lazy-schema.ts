// Module-level zod schemas built at their first use rather than when their module loads.
//
// Building a zod schema costs microseconds, and SCV has hundreds of them: built when their modules load, they
// were most of the 30 ms between a nested SCV child's spawn and its first model request, though that request
// parses only a few of them. `lazySchema(() => z.object(…))` stands for the schema itself (every property,
// method, `instanceof` and `z.infer` works as on the real one) and builds it on the first touch.
import { globalRegistry, type ZodType } from "zod";

export function lazySchema<T extends ZodType>(build: () => T): T {
  let real: T | undefined;
  let building = false;
  const get = (): T => {
    if (!real) {
      // A schema that refers to itself must do so through z.lazy, which defers the reference to parse time.
      if (building) throw new Error("a lazySchema was used while it was being built; write the recursive reference as z.lazy(() => Schema)");
      building = true;
      try {
        real = build();
      } finally {
        building = false;
      }
      // Metadata (`.describe()`, `.meta()`) is keyed by the instance: the stand-in must find it too, for
      // z.toJSONSchema and the protocol docs.
      const meta = globalRegistry.get(real);
      if (meta) globalRegistry.add(proxy as T, meta);
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
