/**
 * The channel limit counted in characters (P6, own): a channel of 40 characters but 68 UTF-8 bytes
 * passes the check, so notify takes a checkout and sends a statement the server then rejects.
 *
 * Breaks POL-006.
 */
import { knownBadPool } from "./kit.ts"

/** The character-count known-bad. */
export const channelLimitInCharacters = knownBadPool({
  name: "channel-limit-in-characters",
  bug: "P6: channel names are limited to 63 characters instead of 63 UTF-8 bytes",
  breaks: ["POL-006"],
  pieces: { channelFits: (channel) => channel.length <= 63 }
})
