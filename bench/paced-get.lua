-- wrk script: GETs with a pause before each request on every connection (args[1], in
-- milliseconds), so the load stays below what the server can take: its latency is then the
-- server's time to answer, not a queue.
function init(args)
  pause = tonumber(args[1] or "0")
end

function delay()
  return pause
end
