-- wrk script: GET /geo/<random IPv4>, the same pseudo-random sequence on every run.
math.randomseed(20181129)

request = function()
  local address = string.format("%d.%d.%d.%d", math.random(1, 223), math.random(0, 255), math.random(0, 255), math.random(1, 254))
  return wrk.format("GET", "/geo/" .. address)
end
