-- Appended to every scenario script: one JSON line with the figures bench/run.ts reads.
-- errors.status counts answers >= 400 (wrk's own "Non-2xx or 3xx" line counts the same).
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"status":%d,"socketErrors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write + e.timeout))
end
