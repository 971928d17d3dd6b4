-- wrk script of the read benchmark (bench/read.bench.ts): every thread reads
-- the request list (one request a line: the path, a tab, and the value of the
-- Authorization header or nothing), pre-formats each request once, and sends
-- them in turn from its own starting point, so that the load rotates over the
-- whole list (slugs, skip values, keys). At the end, one JSON line on stdout:
-- responses, seconds, socket errors, non-2xx/3xx responses and latency
-- percentiles in milliseconds.
--
--   wrk -t1 -c64 -d5s -s bench/readLoad.lua http://127.0.0.1:8080 -- <requests file>

local requests = {}
local count = 0
local at = 0
local threads = 0

function setup(thread)
  thread:set("thread_index", threads)
  threads = threads + 1
end

function init(args)
  local file = assert(io.open(args[1], "r"))
  for line in file:lines() do
    local tab = line:find("\t", 1, true)
    local path = tab and line:sub(1, tab - 1) or line
    local auth = tab and line:sub(tab + 1) or ""
    local headers = { ["Accept"] = "application/json" }
    if auth ~= "" then headers["Authorization"] = auth end
    count = count + 1
    requests[count] = wrk.format("GET", path, headers)
  end
  file:close()
  at = ((thread_index or 0) * 7919) % count
end

function request()
  at = at % count + 1
  return requests[at]
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    '{"responses":%d,"microseconds":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d,' ..
      '"p50":%.3f,"p99":%.3f,"max":%.3f}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
