-- wrk script: the reference for geo.lua, made the same way: a Lua call per request that draws
-- the same pseudo-random address, sent as a query the static route ignores
-- (GET /small.txt?<random IPv4>). The two clients then cost the same per request, so that
-- the pair compares the servers, not a scripted client with a plain one.
math.randomseed(20181129)

request = function()
  local address = string.format("%d.%d.%d.%d", math.random(1, 223), math.random(0, 255), math.random(0, 255), math.random(1, 254))
  return wrk.format("GET", "/small.txt?" .. address)
end
