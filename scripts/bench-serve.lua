-- SPDX-License-Identifier: GPL-3.0-or-later
-- wrk's script for scripts/bench's serve rows: each request posts the next signed token of the
-- files given after `--` (transactions, then webhook bodies of notifications), one notification
-- every `every` requests, each token once; the thread stops when the tokens run out, so no
-- request repeats one already sent. Run with one thread (-t 1): the tokens are read into that
-- thread's Lua state. done() prints one JSON line: requests, seconds, latency percentiles in
-- microseconds and the answers other than 200.
--
--     wrk -t 1 -c 32 -d 10s -s scripts/bench-serve.lua http://127.0.0.1:PORT -- tx.txt notes.txt 16

local transactions, notifications = {}, {}
local every = 16
local sent, notified = 0, 0
-- Answers other than 200; read by done() through thread:get.
refused = 0
-- Requests that got an answer of 200.
acknowledged = 0

local function load(path, into)
  for line in io.lines(path) do
    if #line > 0 then into[#into + 1] = line end
  end
end

function init(args)
  load(args[1], transactions)
  if args[2] then load(args[2], notifications) end
  if args[3] then every = tonumber(args[3]) end
end

local threads = {}

function setup(thread)
  threads[#threads + 1] = thread
end

function request()
  sent = sent + 1
  local body, path
  if #notifications > 0 and sent % every == 0 and notified < #notifications then
    notified = notified + 1
    body, path = notifications[notified], "/v1/notifications"
  else
    local index = sent - notified
    if index > #transactions then
      -- Out of tokens: the loop ends once this call returns, and this request is never
      -- answered to wrk, so it is not counted.
      wrk.thread:stop()
      index = #transactions
    end
    body, path = transactions[index], "/v1/transactions"
  end
  return wrk.format("POST", path, { ["Content-Type"] = "application/jose" }, body)
end

function response(status, headers, body)
  if status == 200 then acknowledged = acknowledged + 1 else refused = refused + 1 end
end

function done(summary, latency, requests)
  local refusedAll, acknowledgedAll = 0, 0
  for _, thread in ipairs(threads) do
    refusedAll = refusedAll + thread:get("refused")
    acknowledgedAll = acknowledgedAll + thread:get("acknowledged")
  end
  local errors = summary.errors
  io.write(string.format(
    '{"requests":%d,"seconds":%.6f,"p50":%d,"p99":%d,"p999":%d,"max":%d,"acknowledged":%d,"refused":%d,'
      .. '"socket_errors":%d,"timeouts":%d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
    latency:percentile(99.9), latency.max, acknowledgedAll, refusedAll,
    errors.connect + errors.read + errors.write, errors.timeout))
end
