-- wrk script: geo.lua's client against a static route. A Lua call per request draws the same
-- pseudo-random address and sends it as a query the route ignores (GET /small.txt?<address>),
-- so that pairing it with a plain client shows what a scripted client does to a server.
math.randomseed(20181129)

request = function()
  local address = string.format("%d.%d.%d.%d", math.random(1, 223), math.random(0, 255), math.random(0, 255), math.random(1, 254))
  return wrk.format("GET", "/small.txt?" .. address)
end
