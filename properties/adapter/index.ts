/**
 * The adapter-contract properties: what `certify` runs first on a vendor's adapter.
 * Each witnesses requirements of `spec/adapter.ts`; together they cover ADP-001..ADP-014.
 */
import type { PropertyDefinition } from "../../harness/Property.ts"
import { failedCommitProperty } from "./commit.ts"
import { isolationProperty } from "./isolation.ts"
import { byteOrderProperty } from "./ordering.ts"
import { platformAlarmProperty } from "./platformAlarm.ts"
import { roundTripProperty } from "./roundTrip.ts"
import { transactionsProperty } from "./transactions.ts"
import { upsertProperty } from "./upsert.ts"

export { failedCommitProperty, isolationProperty, byteOrderProperty, platformAlarmProperty, roundTripProperty, transactionsProperty, upsertProperty }

/** Every adapter-contract property, in catalog order of the requirements they witness. */
export const adapterProperties: ReadonlyArray<PropertyDefinition<any>> = [
  transactionsProperty,
  isolationProperty,
  roundTripProperty,
  byteOrderProperty,
  upsertProperty,
  failedCommitProperty,
  platformAlarmProperty
]
