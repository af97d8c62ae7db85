-- Paced load (`rate` in bench/lib.ts): each thread sends at most its share of a rate, at even
-- intervals, so that two set-ups meet the same traffic instead of each its own saturation. wrk
-- calls delay() before each request after a connection's first; every call takes the thread's
-- next slot. A slot already past is not caught up on: overloaded, the rate falls (and shows).
-- wrk rounds a delay down to whole milliseconds, so a request goes up to 1 ms early; the slots
-- keep their spacing. Latency counts, as always in wrk, from each request's send.
local ffi = require("ffi")
ffi.cdef([[
  typedef struct { long tv_sec; long tv_nsec; } paced_timespec;
  int clock_gettime(int clock, paced_timespec *now);
]])
local clock = ffi.new("paced_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, clock) -- CLOCK_MONOTONIC
  return tonumber(clock.tv_sec) * 1000 + tonumber(clock.tv_nsec) / 1e6
end

local interval_ms = 1000 / tonumber(os.getenv("WRK_THREAD_RATE"))
local next_slot

function delay()
  local now = now_ms()
  if next_slot == nil or next_slot < now then next_slot = now end
  local wait = next_slot - now
  next_slot = next_slot + interval_ms
  return wait
end
