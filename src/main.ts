// Entry point of `bun src/main.ts <command>` and of the compiled binary.
import { describeFailure, runCommand, UsageError } from './cli/commands'
import { ConfigError } from './config'

const usage = `usage: restaurant-ops <command>
  serve
  tenant create --slug S --name N [--timezone TZ]
  tenant list
  location create --tenant SLUG --name N [--timezone TZ]
  staff create --tenant SLUG --email E --first-name F --last-name L [--subject SUB] [--role ROLE] [--location ID] [--passcode DIGITS]
  token --tenant SLUG --subject SUB [--ttl SECONDS]
  migrate
  backup
  restore --tenant SLUG [--timestamp ISO] [--from snapshot|replica] [--to PATH]`

try {
  const result = await runCommand(process.argv.slice(2))
  if (result !== null) console.log(JSON.stringify(result))
} catch (error) {
  const message = describeFailure(error)
  console.error(error instanceof ConfigError ? `configuration error: ${message}` : `error: ${message}`)
  if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) console.error(usage)
  process.exit(1)
}
