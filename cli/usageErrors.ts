/**
 * effect/cli's parse errors as the CLI's one-line usage errors: what went wrong (naming the option,
 * argument or command), then what to type instead. Nothing here prints; `program.ts` does.
 */
import type { CliError } from "effect/cli"
import { CERTIFY_REFUSED_OPTIONS, certifyRefusal, integerFlagProblem } from "./options.ts"

/** One usage problem: the message and the hint printed after it on the same line. */
export interface UsageLine {
  readonly message: string
  readonly hint: string
}

const oneLine = (text: string): string => text.split("\n")[0]!.trim()

const didYouMean = (suggestions: ReadonlyArray<string>): string =>
  suggestions.length === 0 ? "" : `did you mean ${suggestions.map(oneLine).join(" or ")}? `

const invalidValue = (error: CliError.InvalidValue, usage: string): UsageLine => {
  if (error.kind === "argument") return { message: `<${error.option}> cannot be "${error.value}" (expected ${error.expected})`, hint: `usage: ${usage}` }
  const integer = integerFlagProblem(error.option, error.value)
  if (error.value === "") return { message: `--${error.option} needs a value`, hint: integer?.hint ?? `usage: ${usage}` }
  const repeated = /^(\d+) occurrences$/.exec(error.value)
  if (repeated !== null) return { message: `--${error.option} is given ${repeated[1]} times`, hint: `give it once${error.option === "adapter" || error.option === "subject" ? `, as a comma-separated list: --${error.option} a,b` : ""}` }
  if (integer !== undefined) return { message: integer.message, hint: integer.hint }
  return { message: `--${error.option} cannot be "${error.value}" (expected ${oneLine(error.expected)})`, hint: `usage: ${usage}` }
}

/**
 * Describes one effect/cli parse error of the command at `commandPath` (`["durable-conformance", "run"]`),
 * whose usage line is `usage`.
 */
export const describeCliError = (error: CliError.NonShowHelpErrors, commandPath: ReadonlyArray<string>, usage: string): UsageLine => {
  const command = commandPath.length > 1 ? commandPath.slice(1).join(" ") : commandPath[0] ?? "durable-conformance"
  const help = `run ${commandPath.join(" ")} --help`
  switch (error._tag) {
    case "UnrecognizedOption":
      return { message: `unknown option ${error.option} for ${command}`, hint: `${didYouMean(error.suggestions)}${help} for its options` }
    case "UnknownSubcommand":
      return { message: `unknown command "${error.subcommand}"`, hint: `${didYouMean(error.suggestions)}run durable-conformance --help for the commands` }
    case "MissingArgument":
      return { message: `${command} needs <${error.argument}>`, hint: `usage: ${usage}` }
    case "UnexpectedArgument":
      return { message: `${command} does not take ${error.arguments.map((value) => JSON.stringify(value)).join(", ")}`, hint: `usage: ${usage}` }
    case "MissingOption":
      return { message: `${command} needs --${error.option}`, hint: help }
    case "InvalidValue":
      if (command === "certify" && (CERTIFY_REFUSED_OPTIONS as ReadonlyArray<string>).includes(error.option)) return certifyRefusal(error.option)
      return invalidValue(error, usage)
    default:
      return { message: oneLine(error.message), hint: help }
  }
}
