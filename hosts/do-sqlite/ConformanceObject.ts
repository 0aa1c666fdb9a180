/**
 * The shipped conformance Durable Object: runs any property of the suite's registry, and of the extra
 * suites the worker registered (`hostedSuites.ts`), against Durable Object SQLite. A worker that hosts
 * do-sqlite runs exports this class (see `workerEntry.ts` and `test/workerd/worker.ts`), declared in
 * `new_sqlite_classes`.
 */
import { findHostedProperty } from "./hostedSuites.ts"
import { makeConformanceObject } from "./makeConformanceObject.ts"

/**
 * Durable Object with RPC methods `fingerprint()`, `runProperty({ propertyId, implementation?, seed, runs })`,
 * `executeScenario({ propertyId, implementation, scenario })`, and `alarm()`.
 */
export class ConformanceObject extends makeConformanceObject((propertyId, implementation) => findHostedProperty(propertyId, implementation)) {}
