/**
 * Versions that replay tokens and reports pin. `SUITE_VERSION` changes whenever a requirement,
 * model or property changes meaning; a token from another suite version is refused on replay.
 */

/**
 * Version of the requirement suite (requirements, models, properties). 0.2.0 added the content, clocks,
 * cron and pool subjects; 0.3.0 adds the alarms liveness requirements (ALM-050, ALM-051), typed,
 * swarm and targeted alarms scenarios, step-scheduled content races, concurrent cron claims, pool
 * replies held at the server, and faults on every clocks fire path. 0.4.0 checks failed dispatch
 * causes, R9's wording and the default reporter (alarms), pool surface probes (P1, P4-P7), clocks
 * conflicts, whole effect records and relational digests, and new cron N1 spellings. 0.5.0 adds the
 * refused-commit fault (alarms, clocks, content), the alarms race property (ALM-052, ALM-053), the
 * pool's span attributes (POL-013) and multiplexed-driver probes, and compares every alarm's stored
 * rows (with `getAlarmStatus` of the alarms a step can change) after each alarms step. 0.6.0 adds the
 * failed-statement fault (alarms, clocks, content, cron), names only a property's own requirements in its divergences
 * (every subject),
 * probes the clocks journal's own contract, checks content chunks against their bytes and leaves
 * content defaults to the implementation, and draws the refused commit in cron. 0.7.0 adds upstream's
 * clocks and alarms span names (CLK-023, ALM-054), C3's logged flush failure and C2's JSON records (clocks), tampered
 * grants (content, CNT-005), and says a fault in one wording, as it struck, in every subject. 0.8.0
 * names the situations of clocks, cron and pool, draws clocks races by kind (a third overlapped) and
 * crashes inside a fire, cron's second turns, skip-window claims and crashes on claims, and pool's
 * targeted units (an interrupted COMMIT, nested statements, the retry ladder). 0.9.0 appends units
 * drawn last in alarms (a park whose report a crash may lose, a JavaScript caller's ill-typed input),
 * content (a read-back, a grant at its skew boundary, a detach racing a sweep, a struck upload) and
 * cron (a delivery crashing between its receipt and its rewrite), counts content's fault situations
 * only where the fault struck, and cron's concurrent bootstraps only when they were held open together.
 * 0.10.0 appends a second unit in content (a grant asked with a size one byte off, a detach of a
 * reference just attached, an upload or a grant racing a sweep between its scan and its delete) and
 * two more in alarms (a retry delay at, below and above the parked retry delay's cap; a dispatch's
 * `retryFailedAfter` at, below and above the minimum retry delay). 0.11.0 accepts either keying of a cron
 * receipt (by command id, or by id and command), gives a cron day field restricted to every value the
 * key of a star, draws day-of-week restricted to every day, and compares cron timer keys by the
 * schedules they stand for, learned from each declaration, not by their text; alarms draws a failed
 * statement's ordinal over the statements of the transaction it names, and appends a unit of calls with
 * one statement failing to 40% of fault scenarios. 0.12.0 adds CRN-017: upstream's own cron statements
 * (tick insert, rewrite with `ambiguous = false`, generation insert) must run on the implementation's
 * persisted layout, checked with each cron scenario's first step. It also reads the clocks journal's
 * engine event types by C2's names under any namespace, lets a repeat read of a consumed deferred run
 * no transaction (C7), numbers a content sweep's transactions by the writes its store ran in them (an
 * auto-committed claim or delete is none), and places a race's point before an auto-committed write.
 * 0.13.0 counts and faults every write an implementation runs outside a transaction as a transaction of
 * one statement (content, clocks, cron; alarms keeps transactions only, for R3's migration): a storage
 * fault can strike upstream's auto-committed sweep writes, and fault ordinals after such a write move.
 * 0.14.0 closes what a blind-bug study missed (`blind-bugs/`): clocks asks a waiting run with its token
 * or its reason off (C6), content detaches a place in the other tenant (K1, K5) and races a raise
 * beside a second candidate of the same delete ((iii), together), cron declares entries one day field
 * apart (N1), and alarms names R28 when the rows are right but `getAlarmStatus` misreads them.
 * 0.15.0 has both clocks processes schedule one clock at once (C8: `scheduleRace`, overlapped on engines
 * with independent connections and row locks) in half of the concurrent property's race timelines,
 * stops a clocks run waiting as an if-waiting call's transaction begins (C6), compares every alarm's
 * stored payload and repeat after each alarms step, and appends an alarms unit at R16's boundary.
 * 0.16.0 appends a content unit of deploys that register a longer, then a shorter turn budget (T only
 * grows), appends a cron tick write with a failing statement to every fault scenario (N4, N5), and
 * compares when each attempt of a retried pool checkout began with the P7 ladder, and fails reads at
 * the storage boundary (`readFails`), which content's fault scenarios now end with.
 * 0.17.0 observes every interruption of a pool checkout instead of waiting for it (`Interruption.ts`):
 * a checkout still running once the wire is quiet fails a P4 check, where the run used to hang. It
 * also appends a content race unit: an upload held between its first write to the content row and its
 * next statement while a whole sweep runs (`raiseMidTransaction`, K2), and an alarms unit that sets a
 * per-call configuration field invalid over a captured one (R1; a configuration that is a call's only
 * invalid input now cites R1 alone), and compares the clock-scheduled records a clocks sweep hands the
 * journal with the pending clocks it must re-announce (C12).
 * 0.18.0 checks each hook point an implementation reaches against its subject's declared ones (an
 * undeclared name ends the property in an error, `HookVocabulary.ts`), and compares the fields upstream's
 * errors carry beside their tags (`ErrorShape.ts`: alarms' causes, operations and storage ids, the
 * messages of the two classes whose bodies seed 000 shows; content's `maxBytes`). Alarms appends a
 * `misusedHandle` unit (each of R5's mutation and misuse pairs) and checks each misused call's outcome
 * under R5 before the transaction's whole result.
 * 0.19.0 fails reads outside a transaction in alarms (an appended `readFault` unit in fault scenarios:
 * a status and a dispatch each with one read failing, judged at every place the read may fall), and
 * the storage boundary sees such reads even where it leaves auto-committed writes unseen. Alarms also
 * appends a `narrowedSchema` unit: a redeploy narrowing a tag's payload schema to numbers over a row
 * stored before (R29's decode failure of a declared tag).
 * 0.20.0 runs one content model scenario in eight at the reference's 1 MiB chunks and 64 MiB limit,
 * left to the store's defaults (a new payload one byte over a chunk), and appends to content races a
 * stream held open after its first part while a sweep deletes its content (K7's one snapshot).
 * 0.21.0 appends two content model units: a stream capped past the store's limit (K3: over the limit
 * is refused whatever the caller allows), and a stream held while its timeout passes (K7: at most one
 * pull after the timeout; the held consumer counts pulls, not parts).
 * 0.22.0 appends to one clocks fault scenario in four a journal outage through ten or eleven fire
 * retries (C11: retried forever, the backoff reaching its 30 s cap), and to another one in four a
 * restart or sweep whose read outside any transaction fails (`readFails`, now in clocks: C12's sweep
 * must not report what it could not read); clocks timelines cross-shrink to single commands. The
 * pool's multiplexed-gate probe borrows a fourth checkout while the last queued one is in flight (P2:
 * a slot handed to a waiter is not also free). Content races end, one in four, with a grant held
 * between a read of its row outside any transaction and its write while a sweep runs (K4, (iii)).
 * 0.23.0 gives a failed statement SQLite's meaning on the SQLite backends (sqlite, do-sqlite): the
 * statement alone is undone and its transaction stays open, so a swallowed failure commits the rest,
 * judged as if the statement had not failed; Postgres's meaning (the transaction aborted) stays on
 * the Postgres backends. Cron's appended failed tick write gains a third kind, one in three: the
 * rewrite of a delivered tick (N8, settleFired).
 * 0.24.0 appends, to half the `clocks/concurrent` scenarios, two first reads of one completion at
 * once: the read that starts first held before its transaction while virtual time moves on, and the
 * other process reading to completion (C7, `properties/clocks/resultRace.ts`).
 * 0.25.0 holds that read, on a Postgres server when no timer fires during the lag, inside its open
 * transaction before its first write (the transaction probe counting it as held), so a store that
 * decides by a read inside its transaction is seen too; a store that locks the row makes the other
 * read wait, and the held read is judged as committing first. No draw changes.
 * 0.26.0 checks, in the pool's client smoke probe, how each statement reached the server (POL-013: a
 * named prepared statement, or the unnamed one for the unprepared entry points and streams, as
 * `PgClient.make` sends it). No draw changes.
 */
export const SUITE_VERSION = "0.26.0"

/** Version of the harness engine (runner, clock, faults, token format). */
export const HARNESS_VERSION = "0.1.0"

/** Package name, as written into reports and certificates. */
export const SUITE_NAME = "durable-conformance"
