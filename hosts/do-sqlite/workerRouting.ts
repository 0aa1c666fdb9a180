/**
 * The fetch handler of a conformance worker, through which Node (`host.ts`) asks the conformance
 * Durable Object to run properties.
 *
 * Routes: `GET /fingerprint`, `POST /run` with `{ propertyId, implementation?, seed, runs }` and
 * `POST /execute` with `{ propertyId, implementation, scenario }` (replay). All answer JSON; a
 * failure answers status 500 with `{ message }` (message and hint, see `hostedErrors.ts`).
 */
import type { DurableObjectNamespace } from "@cloudflare/workers-types"
import type { AdapterFingerprint, HostedRunRequest, HostedScenarioRequest } from "../../adapters/contract.ts"
import type { ExecutionTrace } from "../../harness/Property.ts"
import type { PropertyRun } from "../../harness/RunResult.ts"
import { encodeHostedError } from "./hostedErrors.ts"

/** Binding name of the conformance object's namespace in the host's Miniflare configuration. */
export const CONFORMANCE_BINDING = "CONFORMANCE"

/** Name of the one object that runs every property (runs are serialized inside it). */
export const CONFORMANCE_OBJECT_NAME = "do-sqlite-conformance"

interface EntryEnv {
  readonly CONFORMANCE: DurableObjectNamespace
}

/** The RPC surface of `ConformanceObject`, as seen through a stub. */
interface ConformanceRpc {
  fingerprint(): Promise<AdapterFingerprint>
  runProperty(request: HostedRunRequest): Promise<PropertyRun>
  executeScenario(request: HostedScenarioRequest): Promise<ExecutionTrace>
}

const json = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })

const answer = async (work: () => Promise<unknown>): Promise<Response> => {
  try {
    return json(await work())
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return json({ message }, 500)
  }
}

/** The worker's default export: routes requests to the one conformance object of the `CONFORMANCE` binding. */
export const conformanceFetchHandler = {
  async fetch(request: Request, env: EntryEnv): Promise<Response> {
    const stub = env.CONFORMANCE.get(env.CONFORMANCE.idFromName(CONFORMANCE_OBJECT_NAME)) as unknown as ConformanceRpc
    const { pathname } = new URL(request.url)
    if (pathname === "/fingerprint" && request.method === "GET") return answer(() => stub.fingerprint())
    if (pathname === "/run" && request.method === "POST") {
      return answer(async () => stub.runProperty(await request.json() as HostedRunRequest))
    }
    if (pathname === "/execute" && request.method === "POST") {
      return answer(async () => stub.executeScenario(await request.json() as HostedScenarioRequest))
    }
    return json({ message: encodeHostedError(`no route ${request.method} ${pathname}`, "use GET /fingerprint, POST /run or POST /execute") }, 404)
  }
}
