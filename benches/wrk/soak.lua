-- wrk script for `cargo xtask soak`: a mix of what the geo server sees, counting 5xx answers.
math.randomseed(20181129)

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  server_errors = 0
end

local function random_ip()
  return string.format("%d.%d.%d.%d", math.random(1, 223), math.random(0, 255), math.random(0, 255), math.random(1, 254))
end

request = function()
  local pick = math.random(1, 13)
  if pick == 1 then return wrk.format("GET", "/app.js", { ["Accept-Encoding"] = "gzip" })
  elseif pick == 2 then return wrk.format("GET", "/app.js")
  elseif pick == 3 then return wrk.format("GET", "/world.svg", { ["Range"] = "bytes=100-1099" })
  elseif pick == 4 then return wrk.format("GET", "/index.html", { ["If-None-Match"] = "*" })
  elseif pick == 5 then return wrk.format("GET", "/lookup/" .. random_ip(), { ["Accept"] = "text/html" })
  elseif pick <= 9 then return wrk.format("GET", "/geo/" .. random_ip())
  elseif pick == 10 then return wrk.format("GET", "/geo/010.1.1.1")
  elseif pick == 11 then return wrk.format("GET", "/%2e%2e/etc/passwd")
  elseif pick == 12 then return wrk.format("GET", "/app.js", { ["Range"] = "bytes=0-0" })
  -- (No HEAD: wrk's parser waits for a body after a HEAD response with Content-Length.)
  else return wrk.format("GET", "/style.css", { ["Accept-Encoding"] = "gzip" })
  end
end

response = function(status, headers, body)
  if status >= 500 then
    server_errors = server_errors + 1
  end
end

done = function(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do
    total = total + thread:get("server_errors")
  end
  io.write(string.format("server_errors=%d\n", total))
end
