/**
 * A tap on the Postgres wire protocol between a driver and the server, for subjects whose
 * implementation opens its own sessions (a connection pool). It is the driver's socket factory (the
 * `stream` option of `@effect/sql-pg`'s connection config): each session's bytes pass through it
 * unchanged, and it records what actually reached the server, never what the implementation says:
 *
 * - every statement executed (a simple `Query`, or an extended-protocol `Execute`, resolved through
 *   `Bind` and `Parse` to its text and text parameters), with the session's transaction status at
 *   that moment (`I` idle, `T` in a transaction, `E` failed transaction, from `ReadyForQuery`);
 * - sessions open now and the most ever open at once (cancel-request sockets are not sessions);
 * - whether any session is busy (still starting, or waiting for `ReadyForQuery`), so the harness can
 *   wait until the system is quiet instead of sleeping;
 * - notifications the server sent (`NotificationResponse`: channel, payload, sending backend), per
 *   session, so the harness knows a notification reached a listener's session.
 *
 * It can also **hold the server's reply** to a chosen statement (`holdReply`): once a statement the
 * selector picks is sent, every byte the server sends on that session is kept back from the client
 * until `release()`. The statement has reached the server and its reply (through `ReadyForQuery`) has
 * reached the tap (`held()`), but not the client: the harness interrupts the caller then, releases the
 * reply, and checks what the implementation did with the half-finished exchange.
 *
 * Node only (it opens TCP sockets with `node:net`).
 *
 * @example
 * ```ts
 * const tap = makePostgresWireTap({ host: "127.0.0.1", port: 5432 })
 * const pool = yield* boundedPool({ ...config, stream: tap.connect })
 * tap.statements().filter((statement) => statement.text.includes("pg_notify"))
 * ```
 */
import * as Net from "node:net"
import { Duplex } from "node:stream"

/** One statement that reached the server. */
export interface WireStatement {
  /** Position among every statement of the tap, from 0. */
  readonly seq: number
  /** The session (socket) it ran on, from 1. */
  readonly session: number
  readonly text: string
  /** Text-format parameters (binary ones appear as their bytes read as UTF-8; NULL as null). */
  readonly params: ReadonlyArray<string | null>
  /** The session's transaction status when it was sent (`?` before the first ReadyForQuery). */
  readonly transactionStatus: "I" | "T" | "E" | "?"
  /**
   * How it was sent: a simple `Query` (`simple`), or the extended protocol through the unnamed
   * statement (`unnamed`, not kept on the session) or a named one (`named`, a prepared statement the
   * session keeps and may run again without parsing).
   */
  readonly protocol: "simple" | "unnamed" | "named"
}

/** A notification the server sent to a session. */
export interface WireNotification {
  /** The session (socket) it reached, from 1. */
  readonly session: number
  readonly channel: string
  readonly payload: string
  /** The backend process that sent it. */
  readonly senderPid: number
}

/** A hold on the server's reply to one statement (see `holdReply`). */
export interface HeldReply {
  /** Whether the selected statement was sent (the hold is active). */
  readonly sent: () => boolean
  /** Whether the server's whole reply to it (through `ReadyForQuery`) has arrived and is held back. */
  readonly held: () => boolean
  /** The statement held, once sent. */
  readonly statement: () => WireStatement | undefined
  /** Passes the held bytes on to the client, in order, and ends the hold (idempotent). */
  readonly release: () => void
  /**
   * Arms a hold on the next statement `select` picks, then releases this one: the client may answer
   * the released reply at once (a driver can write its next statement before `release` returns), so
   * a hold meant for the statement that answer lets through must be armed first.
   */
  readonly releaseAndHold: (select: (statement: WireStatement) => boolean) => HeldReply
}

/** The tap of one run. */
export interface PostgresWireTap {
  /** The socket factory to pass as the driver's `stream` option. */
  readonly connect: () => Duplex
  /** Statements so far, in the order they were written (bounded by `MAX_TAPPED_STATEMENTS`). */
  readonly statements: () => ReadonlyArray<WireStatement>
  /** Sessions open now. */
  readonly openSessions: () => number
  /** The most sessions ever open at once. */
  readonly peakSessions: () => number
  /** Whether a session is starting or waits for the server's answer. */
  readonly busy: () => boolean
  /** A counter that moves on every byte chunk in either direction (quiet means it stands still). */
  readonly activity: () => number
  /** Notifications the server sent so far, in arrival order (bounded by `MAX_TAPPED_STATEMENTS`). */
  readonly notifications: () => ReadonlyArray<WireNotification>
  /**
   * Holds the server's reply to the next statement `select` picks (one hold at a time per tap): from
   * the moment it is sent, the server's bytes on its session are kept back until `release()`.
   */
  readonly holdReply: (select: (statement: WireStatement) => boolean) => HeldReply
  /** Destroys every socket still open. */
  readonly close: () => void
}

/** Bound on recorded statements per tap. */
export const MAX_TAPPED_STATEMENTS = 100_000

const CANCEL_REQUEST_CODE = 80877102
const SSL_REQUEST_CODE = 80877103

interface Session {
  readonly id: number
  readonly raw: Net.Socket
  startup: boolean
  cancel: boolean
  sslAnswerPending: boolean
  ready: boolean
  closed: boolean
  pending: number
  status: WireStatement["transactionStatus"]
  client: Buffer
  server: Buffer
  readonly prepared: Map<string, string>
  readonly portals: Map<string, { readonly statement: string; readonly params: ReadonlyArray<string | null> }>
  /** Server bytes kept back from the client while a hold is active on this session (null: none). */
  heldBytes: Array<Buffer> | null
  /** The duplex the driver reads from (set once connected). */
  push: (chunk: Buffer) => void
}

/** The one active or armed hold of a tap. */
interface HoldState {
  readonly select: (statement: WireStatement) => boolean
  session: Session | undefined
  statement: WireStatement | undefined
  replied: boolean
  released: boolean
}

const cString = (buffer: Buffer, offset: number): readonly [string, number] => {
  const end = buffer.indexOf(0, offset)
  const stop = end < 0 ? buffer.length : end
  return [buffer.toString("utf8", offset, stop), stop + 1]
}

/** Parameters of a `Bind` body that starts at `offset` (after portal and statement names). */
const bindParams = (body: Buffer, offset: number): ReadonlyArray<string | null> => {
  let at = offset
  const formats = body.readInt16BE(at)
  at += 2 + formats * 2
  const count = body.readInt16BE(at)
  at += 2
  const params: Array<string | null> = []
  for (let index = 0; index < count && at + 4 <= body.length; index++) {
    const length = body.readInt32BE(at)
    at += 4
    if (length < 0) params.push(null)
    else {
      params.push(body.toString("utf8", at, at + length))
      at += length
    }
  }
  return params
}

/**
 * A tap that connects each session to `host:port`.
 *
 * @example makePostgresWireTap({ host: "127.0.0.1", port: 54321 })
 */
export const makePostgresWireTap = (target: { readonly host: string; readonly port: number }): PostgresWireTap => {
  const sessions: Array<Session> = []
  const statements: Array<WireStatement> = []
  const notifications: Array<WireNotification> = []
  let hold: HoldState | undefined
  let activity = 0
  let peak = 0
  const open = () => sessions.filter((session) => !session.closed && !session.cancel && !session.startup).length

  const record = (session: Session, text: string, params: ReadonlyArray<string | null>, protocol: WireStatement["protocol"]) => {
    const statement: WireStatement = { seq: statements.length, session: session.id, text, params, transactionStatus: session.status, protocol }
    if (statements.length < MAX_TAPPED_STATEMENTS) statements.push(statement)
    if (hold !== undefined && hold.session === undefined && !hold.released && hold.select(statement)) {
      hold.session = session
      hold.statement = statement
      session.heldBytes = []
    }
  }

  /** Ends `state` and returns the bytes it kept back, for the caller to pass on (none when it held nothing). */
  const endHold = (state: HoldState): { readonly session: Session; readonly kept: ReadonlyArray<Buffer> } | undefined => {
    if (state.released) return undefined
    state.released = true
    const session = state.session
    if (hold === state) hold = undefined
    if (session === undefined || session.heldBytes === null) return undefined
    const kept = session.heldBytes
    session.heldBytes = null
    return { session, kept }
  }

  /** Passes bytes a hold kept back on to the client, in order. */
  const passOn = (ended: ReturnType<typeof endHold>): void => {
    if (ended === undefined) return
    activity += 1
    for (const chunk of ended.kept) ended.session.push(chunk)
  }

  /** Arms a new hold on the next statement `select` picks. */
  const armHold = (select: (statement: WireStatement) => boolean): HeldReply => {
    const state: HoldState = { select, session: undefined, statement: undefined, replied: false, released: false }
    hold = state
    return {
      sent: () => state.session !== undefined,
      held: () => state.replied && !state.released,
      statement: () => state.statement,
      release: () => passOn(endHold(state)),
      releaseAndHold: (next) => {
        if (state.released) throw new Error("PostgresWireTap: releaseAndHold on a hold already released")
        const ended = endHold(state)
        const armed = armHold(next)
        passOn(ended)
        return armed
      }
    }
  }

  const onClientMessage = (session: Session, type: string, body: Buffer) => {
    if (type === "Q") {
      record(session, cString(body, 0)[0], [], "simple")
      session.pending += 1
    } else if (type === "P") {
      const [name, next] = cString(body, 0)
      session.prepared.set(name, cString(body, next)[0])
    } else if (type === "B") {
      const [portal, next] = cString(body, 0)
      const [statement, after] = cString(body, next)
      session.portals.set(portal, { statement, params: bindParams(body, after) })
    } else if (type === "E") {
      const portal = session.portals.get(cString(body, 0)[0])
      record(session, portal === undefined ? "" : session.prepared.get(portal.statement) ?? "", portal?.params ?? [], portal === undefined || portal.statement === "" ? "unnamed" : "named")
    } else if (type === "S") {
      session.pending += 1
    } else if (type === "X") {
      session.closed = true
    }
  }

  const onClient = (session: Session, chunk: Buffer) => {
    activity += 1
    session.client = Buffer.concat([session.client, chunk])
    for (let guard = 0; guard < 1_000_000; guard++) {
      const buffer = session.client
      if (session.startup) {
        if (buffer.length < 8) return
        const length = buffer.readInt32BE(0)
        if (buffer.length < length) return
        const code = buffer.readInt32BE(4)
        session.client = buffer.subarray(length)
        if (code === CANCEL_REQUEST_CODE) session.cancel = true
        else if (code === SSL_REQUEST_CODE) session.sslAnswerPending = true
        else session.startup = false
        peak = Math.max(peak, open())
        continue
      }
      if (buffer.length < 5) return
      const length = buffer.readInt32BE(1)
      if (buffer.length < 1 + length) return
      onClientMessage(session, String.fromCharCode(buffer[0]!), buffer.subarray(5, 1 + length))
      session.client = buffer.subarray(1 + length)
    }
  }

  const onServer = (session: Session, chunk: Buffer) => {
    activity += 1
    session.server = Buffer.concat([session.server, chunk])
    if (session.sslAnswerPending && session.server.length > 0) {
      session.sslAnswerPending = false
      session.server = session.server.subarray(1)
    }
    for (let guard = 0; guard < 1_000_000; guard++) {
      const buffer = session.server
      if (buffer.length < 5) return
      const length = buffer.readInt32BE(1)
      if (buffer.length < 1 + length) return
      if (buffer[0] === 0x5a) {
        session.status = String.fromCharCode(buffer[5]!) as WireStatement["transactionStatus"]
        if (!session.ready) session.ready = true
        else session.pending = Math.max(0, session.pending - 1)
        if (hold !== undefined && hold.session === session && session.pending === 0) hold.replied = true
      } else if (buffer[0] === 0x41 && notifications.length < MAX_TAPPED_STATEMENTS) {
        const senderPid = buffer.readInt32BE(5)
        const [channel, next] = cString(buffer, 9)
        notifications.push({ session: session.id, channel, payload: cString(buffer, next)[0], senderPid })
      }
      session.server = buffer.subarray(1 + length)
    }
  }

  const connect = (): Duplex => {
    const raw = Net.connect({ host: target.host, port: target.port, noDelay: true })
    const session: Session = {
      id: sessions.length + 1,
      raw,
      startup: true,
      cancel: false,
      sslAnswerPending: false,
      ready: false,
      closed: false,
      pending: 0,
      status: "?",
      client: Buffer.alloc(0),
      server: Buffer.alloc(0),
      prepared: new Map(),
      portals: new Map(),
      heldBytes: null,
      push: () => {}
    }
    sessions.push(session)
    const duplex = new Duplex({
      write(chunk: Buffer, _encoding, callback) {
        onClient(session, chunk)
        raw.write(chunk, callback)
      },
      final(callback) {
        raw.end(() => callback())
      },
      read() {},
      destroy(error, callback) {
        session.closed = true
        raw.destroy()
        callback(error)
      }
    })
    session.push = (chunk) => void duplex.push(chunk)
    raw.on("data", (chunk: Buffer) => {
      onServer(session, chunk)
      if (session.heldBytes !== null) session.heldBytes.push(chunk)
      else duplex.push(chunk)
    })
    raw.on("end", () => duplex.push(null))
    raw.on("error", (error) => duplex.destroy(error))
    raw.on("close", () => {
      session.closed = true
      activity += 1
      if (!duplex.destroyed) duplex.destroy()
    })
    return duplex
  }

  return {
    connect,
    statements: () => statements,
    openSessions: open,
    peakSessions: () => peak,
    busy: () => sessions.some((session) => !session.closed && !session.cancel && (!session.ready || session.pending > 0)),
    activity: () => activity,
    notifications: () => notifications,
    holdReply: (select) => {
      if (hold !== undefined && !hold.released) throw new Error("PostgresWireTap: a reply is already held or armed; release it first")
      return armHold(select)
    },
    close: () => {
      for (const session of sessions) if (!session.closed) session.raw.destroy()
    }
  }
}
