-- Put before every scenario script: each wrk thread's number (1, 2, ...) as the global thread_id,
-- which scripts use to make what they send unique per thread or to seed its random numbers.
local next_thread = 1
function setup(thread)
  thread:set("thread_id", next_thread)
  next_thread = next_thread + 1
end
