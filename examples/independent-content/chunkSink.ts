/**
 * Re-cuts a body's parts, whatever their sizes, into chunks of exactly `chunkBytes` (the last one
 * shorter), handing each full chunk to `emit` in order.
 */
import { Effect } from "effect"

/** A sink that accepts parts and emits chunks numbered from 0. */
export interface ChunkSink<E> {
  /** Takes one part; emits every chunk it completes. */
  readonly push: (part: Uint8Array) => Effect.Effect<void, E>
  /** Emits the last, partial chunk, or chunk 0 when nothing came (empty content has chunk 0). */
  readonly finish: Effect.Effect<void, E>
}

/** A sink emitting `(index, bytes)` for each chunk of `chunkBytes`. */
export const chunkSink = <E>(
  chunkBytes: number,
  emit: (index: number, bytes: Uint8Array) => Effect.Effect<void, E>
): ChunkSink<E> => {
  let buffer = new Uint8Array(chunkBytes)
  let filled = 0
  let next = 0
  const flush = Effect.suspend(() => {
    const bytes = buffer.slice(0, filled)
    const index = next
    next += 1
    filled = 0
    buffer = new Uint8Array(chunkBytes)
    return emit(index, bytes)
  })
  const push = (part: Uint8Array): Effect.Effect<void, E> =>
    Effect.gen(function*() {
      let read = 0
      while (read < part.byteLength) {
        const taken = Math.min(chunkBytes - filled, part.byteLength - read)
        buffer.set(part.subarray(read, read + taken), filled)
        filled += taken
        read += taken
        if (filled === chunkBytes) yield* flush
      }
    })
  const finish = Effect.suspend(() => (filled > 0 || next === 0 ? flush : Effect.void))
  return { push, finish }
}
