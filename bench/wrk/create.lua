-- POST /customers with an email unique per request: run nonce, thread id and a per-thread counter.
-- Arguments: token, tenant id, run nonce (a warm-up and the measured run against the same server
-- must not collide). wrk.format drops wrk.headers (the -H flags) when given a header table, so
-- every header goes in that table.
local headers, prefix
local counter = 0
function init(args)
  headers = {
    ["Authorization"] = "Bearer " .. args[1],
    ["X-Tenant-Id"] = args[2],
    ["Content-Type"] = "application/json",
  }
  prefix = '{"firstName":"Load","lastName":"Test","email":"c-' .. args[3] .. "-" .. thread_id .. "-"
end

function request()
  counter = counter + 1
  return wrk.format("POST", "/customers", headers, prefix .. counter .. '@bench.test"}')
end
