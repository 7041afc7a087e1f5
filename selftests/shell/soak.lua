-- SPDX-License-Identifier: GPL-2.0
-- wrk's script for soak.sh: every response checked, none sampled. A
-- response is good if its status is 200 and its body is a whole
-- exposition: it ends where the exporter's exposition ends (after "# EOF"
-- for OpenMetrics, after memcgstat_exporter_build_info for the text
-- format), and every line is a HELP, TYPE or UNIT comment or a sample
-- "name{labels} value". wrk -s soak.lua URL -- om|text; done() prints
--   soak: checked N bad N errors CONNECT READ WRITE STATUS TIMEOUT first: WHY
-- Each wrk thread runs a Lua state of its own: the counts are globals of
-- each, which done() adds up through thread:get().

threads = {}

function setup(thread)
	table.insert(threads, thread)
end

function init(args)
	om = args[1] == "om"
	checked, bad, why = 0, 0, ""
end

local function body_bad(body)
	if om then
		if body:sub(-6) ~= "# EOF\n" then
			return "no '# EOF' at the end"
		end
	elseif not body:find("\nmemcgstat_exporter_build_info{[^\n]*} 1\n$") then
		return "not ending with memcgstat_exporter_build_info"
	end
	for line in body:gmatch("([^\n]*)\n") do
		if line:byte(1) == 35 then	-- '#'
			if not (line:find("^# HELP [%a_:][%w_:]* .") or
				line:find("^# TYPE [%a_:][%w_:]* %a+$") or
				(om and line:find("^# UNIT [%a_:][%w_:]* %a+$")) or
				(om and line == "# EOF")) then
				return "line '" .. line .. "'"
			end
		elseif not (line:find("^[%a_:][%w_:]*{.-} [%d.e+-]+$") or
			    line:find("^[%a_:][%w_:]*{.-} %+Inf$") or
			    line:find("^[%a_:][%w_:]* [%d.e+-]+$")) then
			return "line '" .. line .. "'"
		end
	end
	if om and select(2, body:gsub("# EOF\n", "")) ~= 1 then
		return "'# EOF' more than once"
	end
	return nil
end

function response(status, headers, body)
	local w = status ~= 200 and ("status " .. status) or body_bad(body)

	checked = checked + 1
	if w then
		bad = bad + 1
		if why == "" then
			why = w:sub(1, 200)
		end
	end
end

function done(summary, latency, requests)
	local n, b, w, e = 0, 0, "", summary.errors

	for _, t in ipairs(threads) do
		n = n + t:get("checked")
		b = b + t:get("bad")
		if w == "" then
			w = t:get("why")
		end
	end
	io.write(string.format("soak: checked %d bad %d errors %d %d %d %d %d first: %s\n",
			       n, b, e.connect, e.read, e.write, e.status, e.timeout, w))
end
