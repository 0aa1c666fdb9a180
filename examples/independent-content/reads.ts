/**
 * K7: reads. Both read every chunk in one statement, so from one snapshot: a sweep deletes a content's
 * row and chunks together, so a reader sees all of them or none. Bytes come back only when the chunks
 * are 0..n-1 and sum to the size asked for; otherwise none, never a part.
 */
import { Cause, Effect, Option, Stream } from "effect"
import { completeChunks, joinParts, readChunkRows } from "./chunks.ts"
import type { StoreContext } from "./context.ts"

/** The content's bytes, or none when any chunk is missing or the size differs. */
export const read = (ctx: StoreContext, tenant: string, hash: string, size: number) =>
  readChunkRows(ctx.sql, tenant, hash).pipe(
    Effect.map((rows) => Option.map(completeChunks(rows, size), (parts) => joinParts(parts, size)))
  )

/**
 * The content's chunks as a stream, checked whole before the first is emitted; fails with
 * `NoSuchElementError` when incomplete, and is interrupted (a defect) once `timeoutMs` passes.
 */
export const stream = (ctx: StoreContext, tenant: string, hash: string, size: number, timeoutMs: number) =>
  Stream.unwrap(
    readChunkRows(ctx.sql, tenant, hash).pipe(
      Effect.orDie,
      Effect.map((rows) =>
        Option.match(completeChunks(rows, size), {
          onNone: () => Stream.fail(new Cause.NoSuchElementError(`content ${hash} of ${tenant} with ${size} bytes is not stored`)),
          onSome: (parts) => Stream.fromIterable(parts)
        })
      )
    )
  ).pipe(
    Stream.interruptWhen(
      Effect.sleep(timeoutMs).pipe(Effect.andThen(Effect.die(new Error(`a content stream outlived its ${timeoutMs} ms timeout`))))
    )
  )
