-- GET /customers/{id} spread over tenants. Arguments: a file of lines "tenant id<TAB>token<TAB>
-- customer id", then "uniform", or "zipf" and its exponent s (the tenant of rank k is drawn with
-- probability proportional to 1/k^s). Each tenant's request is formatted once at start.
local requests, cumulative = {}, nil
function init(args)
  for line in io.lines(args[1]) do
    local tenant, token, customer = line:match("^([^\t]+)\t([^\t]+)\t([^\t]+)$")
    requests[#requests + 1] = wrk.format("GET", "/customers/" .. customer, {
      ["Authorization"] = "Bearer " .. token,
      ["X-Tenant-Id"] = tenant,
    })
  end
  if args[2] == "zipf" then
    local s, total = tonumber(args[3]), 0
    cumulative = {}
    for k = 1, #requests do
      total = total + k ^ -s
      cumulative[k] = total
    end
    for k = 1, #requests do cumulative[k] = cumulative[k] / total end
  end
  math.randomseed(os.time() * 100 + thread_id)
end

-- The first rank whose cumulative probability reaches u (binary search).
local function zipf_rank()
  local u, lo, hi = math.random(), 1, #cumulative
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if cumulative[mid] < u then lo = mid + 1 else hi = mid end
  end
  return lo
end

function request()
  if cumulative then return requests[zipf_rank()] end
  return requests[math.random(#requests)]
end
