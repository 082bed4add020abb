-- wrk script for bench/load.py: POST /v1/moderations with request bodies taken in turn
-- from a file (one JSON body per line), and a JSON summary line at the end.
--
--   wrk -t1 -c8 -d20s -s bench/load.lua http://127.0.0.1:8000 -- bodies.jsonl

local bodies = {}
local next_body = 1
local headers = { ["Content-Type"] = "application/json" }

function init(args)
  for line in io.lines(args[1]) do
    bodies[#bodies + 1] = line
  end
  if #bodies == 0 then
    error("no request bodies in " .. args[1])
  end
end

function request()
  local body = bodies[next_body]
  next_body = next_body % #bodies + 1
  return wrk.format("POST", "/v1/moderations", headers, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests": %d, "duration_us": %d, "errors": {"connect": %d, "read": %d, '
      .. '"write": %d, "status": %d, "timeout": %d}, "latency_us": {"p50": %d, "p90": %d, '
      .. '"p99": %d, "max": %d, "mean": %.1f}}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    latency.mean))
end
