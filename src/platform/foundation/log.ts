// Structured JSON log lines on stderr, so stdout stays free for command output.
import type { Config } from '../../config'

const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const
type Level = Exclude<keyof typeof levels, 'silent'>

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}

/** `process`: what every line of this process carries (a worker's id: src/cli/workers.ts). */
export function createLogger(level: Config['logLevel'], process_: Record<string, unknown> = {}): Logger {
  const threshold = levels[level]
  const write = (lvl: Level) => (msg: string, fields?: Record<string, unknown>) => {
    if (levels[lvl] < threshold) return
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...process_, ...fields })}\n`,
    )
  }
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') }
}
