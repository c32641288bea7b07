/**
 * Deep-freezes plain data in place and returns it. Already-frozen values are skipped, so
 * freezing an item built from frozen parts costs only its new nodes. Iterative: any depth.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  // An explicit stack (allocated only when a child needs freezing): no recursion limit.
  let stack: object[] | undefined;
  let node: object | undefined = value as object;
  while (node !== undefined) {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (child !== null && typeof child === 'object' && !Object.isFrozen(child)) {
          Object.freeze(child);
          (stack ??= []).push(child);
        }
      }
    } else {
      for (const key in node) {
        const child: unknown = (node as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object' && !Object.isFrozen(child)) {
          Object.freeze(child);
          (stack ??= []).push(child);
        }
      }
    }
    node = stack?.pop();
  }
  return value;
}
