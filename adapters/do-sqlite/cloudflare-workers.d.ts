/**
 * The slice of the `cloudflare:workers` module that the Durable Object side of the do-sqlite adapter
 * uses, so it type-checks with the project's Node `tsconfig.json` (which does not load the workerd
 * global types). workerd provides the real module at run time.
 */
declare module "cloudflare:workers" {
  import type { DurableObjectState } from "@cloudflare/workers-types"

  /** Base class of Durable Objects whose public methods are callable over RPC. */
  export abstract class DurableObject<Env = unknown> {
    protected ctx: DurableObjectState
    protected env: Env
    constructor(ctx: DurableObjectState, env: Env)
  }
}
