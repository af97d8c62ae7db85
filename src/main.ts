// Entry point of `bun src/main.ts <command>` and of the compiled binary.
import { CommandFailure, describeFailure, runCommand, UsageError } from './cli/commands'
import { ConfigError } from './config'

const usage = `usage: restaurant-ops <command>
  serve
  tenant create --slug S --name N [--timezone TZ] [--currency CUR] [--seed empty|demo] [--owner-subject SUB] [--owner-email E] [--ephemeral] [--ttl SECONDS]
  tenant list
  tenant suspend|resume --tenant SLUG
  tenant delete --tenant SLUG [--purge-snapshots]
  tenant export --tenant SLUG --out PATH
  tenant import --file PATH --slug S --name N [--timezone TZ] [--currency CUR]
  tenant move SLUG --to NODE          (several nodes: CLUSTER_ETCD_URL)
  tenant rebalance                    (several nodes: CLUSTER_ETCD_URL)
  operator-key create --name N
  operator-key list
  operator-key revoke --id ID
  location create --tenant SLUG --name N [--timezone TZ] [--address1 A] [--address2 A] [--city C] [--state S] [--postal-code P] [--country CC] [--phone P]
  staff create --tenant SLUG --email E --first-name F --last-name L [--subject SUB] [--role ROLE] [--location ID] [--passcode DIGITS]
  token --tenant SLUG --subject SUB [--ttl SECONDS]
  credential create --tenant SLUG --name N --scopes a,b --locations ID,ID [--rate-limit PER_MINUTE]
  credential list [--tenant SLUG]
  credential revoke --id ID
  audit verify --tenant SLUG
  import FILE --tenant SLUG --kind customers [--validate] [--emit-events] [--mapping JSON] [--format csv|ndjson]
  export customers|orders|payments|gift-card-ledger|shifts|audit-log --tenant SLUG [--format csv|ndjson] [--from ISO] [--to ISO] [--out PATH]
  migrate
  backup
  restore --tenant SLUG [--timestamp ISO] [--from snapshot|replica] [--to PATH]`

try {
  const result = await runCommand(process.argv.slice(2))
  if (result !== null) console.log(JSON.stringify(result))
} catch (error) {
  if (error instanceof CommandFailure) console.log(JSON.stringify(error.result))
  const message = describeFailure(error)
  console.error(error instanceof ConfigError ? `configuration error: ${message}` : `error: ${message}`)
  if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) console.error(usage)
  process.exit(1)
}
