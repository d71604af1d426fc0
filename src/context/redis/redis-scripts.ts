// The Lua scripts of a conversation on Redis: every write to a session's keys goes through one of them, so each is atomic.
import { luaScript } from '../../redis/script';

/*
 * Keys of every session script, in this order (redisSessionKeys): turns, system, summary, archive, counter
 * (`…:seq`), busy, superseded (the tokens of runs a later message took the session from), the write id when the
 * script writes one, and on a plain Redis the old layout's turns and system. All but the old layout's share the
 * session's hash tag, so on a Redis Cluster a script touches one slot.
 */

/**
 * migrate(turns, system, old turns, old system): moves a session in the old layout into the new one, in the
 * script that touches it, so it is atomic. Turns already in the new list (an old process still wrote the old
 * layout after an upgrade) stay after the old ones; a system message in the new layout wins. RENAME keeps the
 * expiry. Without old keys (a cluster, where nothing was written before), nothing to do.
 */
const MIGRATE_LUA = `
local function migrate(turns, system, oldTurns, oldSystem)
  if not oldTurns then return end
  if redis.call('EXISTS', oldTurns) == 1 then
    if redis.call('EXISTS', turns) == 0 then
      redis.call('RENAME', oldTurns, turns)
    else
      local entries = redis.call('LRANGE', oldTurns, 0, -1)
      for index = #entries, 1, -1 do redis.call('LPUSH', turns, entries[index]) end
      redis.call('DEL', oldTurns)
    end
  end
  if redis.call('EXISTS', oldSystem) == 1 then
    if redis.call('EXISTS', system) == 0 then redis.call('RENAME', oldSystem, system) else redis.call('DEL', oldSystem) end
  end
end
`;

/**
 * The entry format (see turn-codec.ts): the number first, so it is read and written with patterns. number_all
 * numbers a session's entries for good on its first write since turns were numbered (its counter does not exist
 * yet): an entry keeps its number, one without gets the number numberEntries gives it on read (its position when
 * none is numbered), and the counter starts at the highest, expiring with the turns.
 */
const ENTRY_LUA = `
local function seq_of(entry) return tonumber(string.match(entry or '', '^{"seq":(%d+),')) end
local function numbered(entry, seq) return '{"seq":' .. seq .. ',' .. string.sub(entry, 2) end
local function archived(entry, reason, at)
  local seq, rest = string.match(entry, '^{"seq":(%d+),(.*)$')
  return '{"seq":' .. seq .. ',"archived":"' .. reason .. '","archived_at":"' .. at .. '",' .. rest
end
local function read_archived(entry)
  local seq, reason, rest = string.match(entry, '^{"seq":(%d+),"archived":"(%a+)","archived_at":"[^"]*",(.*)$')
  if not seq then return nil end
  return tonumber(seq), reason, '{"seq":' .. seq .. ',' .. rest
end
local function summary_through(raw) return tonumber(string.match(raw or '', '^{"through_seq":(%d+),')) or 0 end
local function expire(key, ttl) if ttl > 0 then redis.call('EXPIRE', key, ttl) else redis.call('PERSIST', key) end end
local function expire_counter(counter, ttl, archiveTtl)
  if ttl == 0 or archiveTtl == 0 then redis.call('PERSIST', counter) else redis.call('EXPIRE', counter, math.max(ttl, archiveTtl)) end
end
local function number_all(turns, counter)
  if redis.call('EXISTS', counter) == 1 then return end
  local entries = redis.call('LRANGE', turns, 0, -1)
  local own, first, numbers, top = {}, nil, {}, 0
  for index, entry in ipairs(entries) do
    own[index] = seq_of(entry)
    if own[index] and not first then first = index end
  end
  if not first then
    for index = 1, #entries do numbers[index] = index end
  else
    for index = first, 1, -1 do numbers[index] = own[index] or (numbers[index + 1] - 1) end
    for index = first + 1, #entries do numbers[index] = own[index] or (numbers[index - 1] + 1) end
  end
  for index, entry in ipairs(entries) do
    if not own[index] and numbers[index] >= 1 then redis.call('LSET', turns, index - 1, numbered(entry, numbers[index])) end
    if numbers[index] > top then top = numbers[index] end
  end
  redis.call('SET', counter, top)
  local pttl = redis.call('PTTL', turns)
  if pttl > 0 then redis.call('PEXPIRE', counter, pttl) end
end
`;

const LIBRARY = `${MIGRATE_LUA}${ENTRY_LUA}`;

/**
 * Prepare: reads the newest entries (LRANGE from ARGV[1]) with the length, system message, TTL, summary and
 * counter — one command, so prepare costs one round trip and O(window), whatever the history length. With a lock
 * mode (ARGV[2] `take` or `take_over`), first takes the session's lock for ARGV[4] ms as `<counter>:<ARGV[3]>`;
 * `take` on a held lock answers `busy` and reads nothing; `take_over` notes the holder's token as superseded.
 * KEYS: turns, system, summary, archive, counter, busy, superseded[, old turns, old system].
 */
export const READ_SCRIPT = luaScript(
	`${LIBRARY}
migrate(KEYS[1], KEYS[2], KEYS[8], KEYS[9])
local token = false
if ARGV[2] ~= '' then
  local holder = redis.call('GET', KEYS[6])
  if holder and ARGV[2] == 'take' then return { 'busy' } end
  number_all(KEYS[1], KEYS[5])
  token = (redis.call('GET', KEYS[5]) or '0') .. ':' .. ARGV[3]
  redis.call('SET', KEYS[6], token, 'PX', tonumber(ARGV[4]))
  if holder then
    redis.call('SADD', KEYS[7], holder)
    redis.call('PEXPIRE', KEYS[7], tonumber(ARGV[4]))
  end
end
local entries = redis.call('LRANGE', KEYS[1], tonumber(ARGV[1]), -1)
return { 'read', entries, redis.call('LLEN', KEYS[1]), redis.call('GET', KEYS[2]), redis.call('TTL', KEYS[1]), ` +
		// the return line goes on: one line of the script, split here so that no source line is over 160
		`redis.call('GET', KEYS[3]), redis.call('GET', KEYS[5]), token }
`,
);

/**
 * Persist: appends the turn numbered by the counter, trims, sets or removes the system message and refreshes the
 * expiries; with a summary (ARGV[8], covering up to ARGV[9]) it first moves every live turn it covers to the
 * archive and replaces the stored summary. A busy token (ARGV[7]) must still hold the lock — or, the lock gone,
 * no turn must have been added since its prepare — and the lock is let go: a token a later message took the
 * session from answers `superseded`, one whose lock expired while the session moved on `changed`. Without a token,
 * a locked session refuses.
 * A write id seen before (the same persist sent again, e.g. by a cluster client retrying during a failover)
 * writes nothing and answers as the first time. Every refusal comes before the first write, and a key of another
 * type fails the first LLEN, so a refused or failed persist has written nothing.
 * KEYS: turns, system, summary, archive, counter, busy, superseded, write id[, old turns, old system].
 * ARGV: entry, max stored, ttl, system mode, system message, id ttl, busy token, summary, through, archive ttl,
 * max archived, now.
 */
export const PERSIST_SCRIPT = luaScript(`${LIBRARY}
redis.call('LLEN', KEYS[1])
redis.call('LLEN', KEYS[4])
migrate(KEYS[1], KEYS[2], KEYS[9], KEYS[10])
local done = redis.call('GET', KEYS[8])
if done then
  local seq, length, moved = string.match(done, '^(%d+):(%d+):(%d+)$')
  return { 'stored', tonumber(seq or 0), tonumber(length or redis.call('LLEN', KEYS[1])), tonumber(moved or 0) }
end
number_all(KEYS[1], KEYS[5])
local token = ARGV[7]
local holder = redis.call('GET', KEYS[6])
if token == '' then
  if holder then return { 'busy' } end
elseif holder ~= token then
  if redis.call('SISMEMBER', KEYS[7], token) == 1 then return { 'superseded' } end
  if holder then return { 'changed' } end
  if tonumber(string.match(token, '^(%d+):')) ~= tonumber(redis.call('GET', KEYS[5]) or '0') then return { 'changed' } end
end
local moved = 0
if ARGV[8] ~= '' then
  local through = tonumber(ARGV[9])
  local stored = summary_through(redis.call('GET', KEYS[3]))
  local newest = math.max(seq_of(redis.call('LINDEX', KEYS[1], -1)) or 0, stored)
  if through > newest then return { 'ahead', newest } end
  if through < stored then return { 'behind', stored } end
  while true do
    local first = redis.call('LINDEX', KEYS[1], 0)
    local seq = seq_of(first)
    if not seq or seq > through then break end
    redis.call('LPOP', KEYS[1])
    redis.call('RPUSH', KEYS[4], archived(first, 'summarised', ARGV[12]))
    moved = moved + 1
  end
  redis.call('SET', KEYS[3], ARGV[8])
end
local seq = redis.call('INCR', KEYS[5])
local length = redis.call('RPUSH', KEYS[1], numbered(ARGV[1], seq))
local maxStored = tonumber(ARGV[2])
if length > maxStored then
  redis.call('LTRIM', KEYS[1], -maxStored, -1)
  length = maxStored
end
if ARGV[4] == 'set' then redis.call('SET', KEYS[2], ARGV[5]) elseif ARGV[4] == 'delete' then redis.call('DEL', KEYS[2]) end
local ttl, archiveTtl = tonumber(ARGV[3]), tonumber(ARGV[10])
expire(KEYS[1], ttl)
expire(KEYS[2], ttl)
expire(KEYS[3], ttl)
expire_counter(KEYS[5], ttl, archiveTtl)
if moved > 0 then
  redis.call('LTRIM', KEYS[4], -tonumber(ARGV[11]), -1)
  expire(KEYS[4], archiveTtl)
end
if token ~= '' and holder == token then redis.call('DEL', KEYS[6]) end
redis.call('SET', KEYS[8], seq .. ':' .. length .. ':' .. moved, 'EX', tonumber(ARGV[6]))
return { 'stored', seq, length, moved }
`);

/** Lets go of the lock if ARGV[1] still holds it. KEYS: busy. */
export const RELEASE_SCRIPT = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0
`);

/**
 * Everything of a session at one moment, for list and fork (the source): live and archived entries, system
 * message, summary, counter, whether it is locked, TTLs. KEYS: turns, system, summary, archive, counter, busy,
 * superseded[, old turns, old system].
 */
export const SNAPSHOT_SCRIPT = luaScript(`${LIBRARY}
migrate(KEYS[1], KEYS[2], KEYS[8], KEYS[9])
return { redis.call('LRANGE', KEYS[1], 0, -1), redis.call('LRANGE', KEYS[4], 0, -1), redis.call('GET', KEYS[2]), redis.call('GET', KEYS[3]),
  redis.call('GET', KEYS[5]), redis.call('EXISTS', KEYS[6]), redis.call('TTL', KEYS[1]), redis.call('TTL', KEYS[4]) }
`);

/**
 * Rewind to turn ARGV[1]: live turns after it move to the archive marked `rewound`; when it lies inside the
 * summary, the summary's archived turns up to it come back (in order) and the summary is dropped, its later turns
 * re-marked `rewound`. Refused while a run holds the session. The live list keeps its expiry.
 * KEYS: turns, system, summary, archive, counter, busy, superseded, write id[, old turns, old system].
 * ARGV: to turn, archive ttl, max archived, now, id ttl.
 */
export const REWIND_SCRIPT = luaScript(`${LIBRARY}
redis.call('LLEN', KEYS[1])
redis.call('LLEN', KEYS[4])
migrate(KEYS[1], KEYS[2], KEYS[9], KEYS[10])
local done = redis.call('GET', KEYS[8])
if done then return { 'done', done } end
if redis.call('EXISTS', KEYS[1], KEYS[3], KEYS[4], KEYS[5]) == 0 then return { 'not_found' } end
if redis.call('EXISTS', KEYS[6]) == 1 then return { 'busy' } end
number_all(KEYS[1], KEYS[5])
local to, now = tonumber(ARGV[1]), ARGV[4]
local stored = summary_through(redis.call('GET', KEYS[3]))
local newest = math.max(seq_of(redis.call('LINDEX', KEYS[1], -1)) or 0, stored)
if to > newest then return { 'range', newest } end
local pttl = redis.call('PTTL', KEYS[1])
local moving = {}
while true do
  local last = redis.call('LINDEX', KEYS[1], -1)
  local seq = seq_of(last)
  if not seq or seq <= to then break end
  redis.call('RPOP', KEYS[1])
  table.insert(moving, 1, last)
end
for _, entry in ipairs(moving) do redis.call('RPUSH', KEYS[4], archived(entry, 'rewound', now)) end
local restored, dropped = 0, 0
if stored > 0 and to < stored then
  local kept, back = {}, {}
  for _, entry in ipairs(redis.call('LRANGE', KEYS[4], 0, -1)) do
    local seq, reason, live = read_archived(entry)
    if seq and reason == 'summarised' and seq <= to then table.insert(back, { seq, live })
    elseif seq and reason == 'summarised' then table.insert(kept, archived(live, 'rewound', now))
    else table.insert(kept, entry) end
  end
  table.sort(back, function(left, right) return left[1] < right[1] end)
  redis.call('DEL', KEYS[4])
  for _, entry in ipairs(kept) do redis.call('RPUSH', KEYS[4], entry) end
  for index = #back, 1, -1 do redis.call('LPUSH', KEYS[1], back[index][2]) end
  restored = #back
  redis.call('DEL', KEYS[3])
  dropped = 1
end
if pttl > 0 and redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], pttl) end
if #moving > 0 or dropped == 1 then
  redis.call('LTRIM', KEYS[4], -tonumber(ARGV[3]), -1)
  expire(KEYS[4], tonumber(ARGV[2]))
end
local result = #moving .. ':' .. restored .. ':' .. dropped .. ':' .. redis.call('LLEN', KEYS[1])
redis.call('SET', KEYS[8], result, 'EX', tonumber(ARGV[5]))
return { 'done', result }
`);

/**
 * Fork's second half: creates the new session from what was read of the source, refusing (`exists`) when any key
 * of the target exists, in either layout. KEYS: turns, system, summary, archive, counter, busy, superseded, write
 * id[, old turns, old system] of the target. ARGV: id ttl, ttl, archive ttl, last seq, system, has system ('1'), summary,
 * live count n, archived count m, then n live entries and m archived ones.
 */
export const FORK_CREATE_SCRIPT = luaScript(`${LIBRARY}
if redis.call('GET', KEYS[8]) then return { 'forked' } end
for index = 1, #KEYS do
  if index ~= 7 and index ~= 8 and redis.call('EXISTS', KEYS[index]) == 1 then return { 'exists' } end
end
local live, kept = tonumber(ARGV[8]), tonumber(ARGV[9])
for index = 1, live do redis.call('RPUSH', KEYS[1], ARGV[9 + index]) end
for index = 1, kept do redis.call('RPUSH', KEYS[4], ARGV[9 + live + index]) end
if ARGV[6] == '1' then redis.call('SET', KEYS[2], ARGV[5]) end
if ARGV[7] ~= '' then redis.call('SET', KEYS[3], ARGV[7]) end
redis.call('SET', KEYS[5], ARGV[4])
local ttl, archiveTtl = tonumber(ARGV[2]), tonumber(ARGV[3])
expire(KEYS[1], ttl)
expire(KEYS[2], ttl)
expire(KEYS[3], ttl)
expire(KEYS[4], archiveTtl)
expire_counter(KEYS[5], ttl, archiveTtl)
redis.call('SET', KEYS[8], '1', 'EX', tonumber(ARGV[1]))
return { 'forked' }
`);
