-- alloc.lua [DEPTH [RECORDS]] - the allocator-heavy workload of
-- bench/real/real.sh, for Lua 5.4: binary trees (the classic allocator
-- benchmark: millions of small tables made and dropped, the collector
-- frees them), then records built as strings, joined, split and counted
-- (short strings copied by memcpy into new string objects, buffers
-- grown by realloc).  Prints a checksum, the same for every build.
local depth = tonumber(arg[1]) or 14
local records = tonumber(arg[2]) or 200000

local function bottomup(d)
	if d == 0 then return {} end
	d = d - 1
	return { bottomup(d), bottomup(d) }
end
local function check(t)
	if t[1] then return 1 + check(t[1]) + check(t[2]) end
	return 1
end

local sum = 0
for d = 4, depth, 2 do
	for _ = 1, 1 << (depth - d + 4) do sum = sum + check(bottomup(d)) end
end

local parts = {}
for i = 1, records do
	parts[#parts + 1] = "key" .. i .. "=" .. string.rep("v", i % 61)
	if #parts == 1000 then
		local joined = table.concat(parts, ";")
		for w in joined:gmatch("[^;]+") do
			local k, v = w:match("^(%w+)=(v*)$")
			sum = sum + #k + #v
		end
		parts = {}
	end
end
print(sum)
