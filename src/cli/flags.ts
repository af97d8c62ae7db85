// Command-line flags as parsed by node:util parseArgs, and reading them; the errors a command
// ends with.

export class UsageError extends Error {}

/** A command that ran but found a failure: its result is still printed, then it exits non-zero. */
export class CommandFailure extends Error {
  constructor(
    message: string,
    readonly result: unknown,
  ) {
    super(message)
  }
}

export type Flags = Record<string, string | boolean | undefined>

export function required(flags: Flags, name: string): string {
  const value = flags[name]
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`)
  return value
}

export function optional(flags: Flags, name: string): string | undefined {
  const value = flags[name]
  return typeof value === 'string' ? value : undefined
}

/** A whole number flag, or undefined when absent. */
export function wholeNumber(flags: Flags, name: string): number | undefined {
  const value = optional(flags, name)
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`)
  return Number(value)
}
