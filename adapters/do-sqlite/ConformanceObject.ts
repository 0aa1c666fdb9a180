/**
 * The shipped conformance Durable Object: runs any property of the suite's registry against
 * Durable Object SQLite. A worker that hosts do-sqlite runs exports this class (see `worker/entry.ts`
 * and `test/workerd/worker.ts`), declared in `new_sqlite_classes`.
 */
import { findProperty } from "../../properties/registry.ts"
import { makeConformanceObject } from "./makeConformanceObject.ts"

/** Durable Object with RPC methods `fingerprint()` and `runProperty({ propertyId, seed, runs })`, and `alarm()`. */
export class ConformanceObject extends makeConformanceObject(findProperty) {}
