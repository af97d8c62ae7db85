// Runs autocannon under Node with the JSON config in the file argv[2]; prints its JSON result.
// `targets` (optional): requests rotate over them, each with its own path and headers, so load can
// spread across tenants. `[<id>]` in a body becomes a unique id per request.
const autocannon = require('autocannon')
const config = JSON.parse(require('node:fs').readFileSync(process.argv[2], 'utf8'))
const options = {
  url: config.url,
  connections: config.connections,
  duration: config.duration,
  method: config.method ?? 'GET',
  headers: config.headers ?? {},
  body: config.body,
  idReplacement: Boolean(config.body),
}
if (config.targets) {
  let next = 0
  options.requests = [
    {
      setupRequest(req) {
        const target = config.targets[next++ % config.targets.length]
        return { ...req, path: target.path, headers: { ...req.headers, ...target.headers } }
      },
    },
  ]
}
autocannon(options, (error, result) => {
  if (error) throw error
  process.stdout.write(JSON.stringify(result))
})
