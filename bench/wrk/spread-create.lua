-- POST /customers spread uniformly over tenants, an email unique per request. Arguments: a file of
-- lines "tenant id<TAB>token<TAB>customer id" (bench/wrk/spread.lua's), then a run nonce (a
-- warm-up and the measured run against the same server must not collide).
local tenants, prefix = {}, nil
local counter = 0
function init(args)
  for line in io.lines(args[1]) do
    local tenant, token = line:match("^([^\t]+)\t([^\t]+)\t")
    tenants[#tenants + 1] = {
      ["Authorization"] = "Bearer " .. token,
      ["X-Tenant-Id"] = tenant,
      ["Content-Type"] = "application/json",
    }
  end
  prefix = '{"firstName":"Load","lastName":"Test","email":"c-' .. args[2] .. "-" .. thread_id .. "-"
  math.randomseed(os.time() * 100 + thread_id)
end

function request()
  counter = counter + 1
  return wrk.format("POST", "/customers", tenants[math.random(#tenants)], prefix .. counter .. '@bench.test"}')
end
