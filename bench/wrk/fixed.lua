-- One request repeated: the URL on the command line gives method GET and the path.
-- Arguments: token, tenant id. The headers go into wrk.headers itself, so wrk builds the request
-- once per thread and calls no Lua per request.
function init(args)
  wrk.headers["Authorization"] = "Bearer " .. args[1]
  wrk.headers["X-Tenant-Id"] = args[2]
end
