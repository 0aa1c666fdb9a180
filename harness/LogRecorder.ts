/**
 * Hands every log entry an implementation writes to the harness, through a logger the harness
 * installs in place of the implementation's (`Logger.CurrentLoggers`), so a rule that says a failure
 * "is logged" can be checked without the implementation's cooperation. Fibers an operation forks
 * inherit the logger, so entries their later work writes are handed over too.
 */
import { type Cause, Effect, Logger, type LogLevel, References } from "effect"

/** One log entry as the harness sees it. */
export interface LogEntry {
  readonly level: LogLevel.LogLevel
  /** The message's parts (`Effect.logWarning("text", value)` has two). */
  readonly parts: ReadonlyArray<unknown>
  readonly cause: Cause.Cause<unknown>
}

/** Log levels at which an entry reports a failure to an operator. */
export const FAILURE_LOG_LEVELS: ReadonlyArray<LogLevel.LogLevel> = ["Warn", "Error", "Fatal"]

/**
 * A logger handing each entry to `onEntry`.
 *
 * @example const logger = handingLogger((entry) => entries.push(entry))
 */
export const handingLogger = (onEntry: (entry: LogEntry) => void): Logger.Logger<unknown, void> =>
  Logger.make(({ logLevel, message, cause }) => onEntry({ level: logLevel, parts: Array.isArray(message) ? message : [message], cause }))

/**
 * `effect` with its loggers replaced by `logger` (from `handingLogger`) and no minimum level: nothing
 * it logs reaches the console, everything reaches the harness, whatever level the caller silenced.
 *
 * @example withLogsTo(service.deferredDone(options), sessionLogger)
 */
export const withLogsTo = <A, E, R>(effect: Effect.Effect<A, E, R>, logger: Logger.Logger<unknown, void>): Effect.Effect<A, E, R> =>
  effect.pipe(Effect.provideService(Logger.CurrentLoggers, new Set([logger])), Effect.provideService(References.MinimumLogLevel, "All"))
