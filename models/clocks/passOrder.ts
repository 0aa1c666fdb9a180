/**
 * The order a pass of the clocks model takes its items in where the reference fixes none (C12's
 * sweep, C9's fires of one instant): the canonical order, or another spelled out by index.
 */
import { orderAt, orderCount } from "../../harness/Alternatives.ts"

/** `canonical` in the order numbered `passOrder` (`orderAt`'s numbering, modulo the list's orders); 0 keeps it. */
export const inPassOrder = <T>(canonical: ReadonlyArray<T>, passOrder: number): Array<T> =>
  orderAt(canonical, passOrder % orderCount(canonical.length))
