-- wrk script: each thread rewrites its own document with conditional PUTs, quoting the ETag of
-- the previous response (a GET fetches the first one: wrk cannot read a HEAD response). Run with -t N -c N: one connection per
-- thread, so every response answers the thread's last request.
-- Arguments: the URL prefix of the documents (thread k writes <prefix><k>/), and optionally a
-- pause in milliseconds before each request (pacing each writer; none by default).
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  target = args[1] .. id .. "/"
  pause = tonumber(args[2] or "0")
  etag = nil
  n = 0
end

function delay()
  return pause
end

local function body(k)
  local lines = { "@prefix ex: <https://example.org/vocabulary#> ." }
  for i = 0, 95 do
    lines[#lines + 1] = string.format('<#this> ex:p%d "value %d of write %d" .', i % 12, i, k)
  end
  return table.concat(lines, "\n") .. "\n"
end

function request()
  if etag == nil then
    return wrk.format("GET", target)
  end
  n = n + 1
  return wrk.format("PUT", target, { ["Content-Type"] = "text/turtle", ["If-Match"] = etag }, body(id * 1000000 + n))
end

function response(status, headers, _)
  etag = headers["ETag"] or headers["etag"]
  if status >= 300 then
    etag = nil
  end
end
