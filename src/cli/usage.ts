// The CLI's usage line and --help text; the --config key list comes from the settings table.
import { settingEntries } from '../settings/settings';

/** Words joined by ", " into lines of at most `width` characters, each after `indent`. */
function wrap(words: string[], first: string, indent: string, width = 104): string {
	const lines = [first];
	for (const [index, word] of words.entries()) {
		const piece = index < words.length - 1 ? `${word},` : word;
		const line = lines[lines.length - 1];
		if (line.length + 1 + piece.length > width) lines.push(`${indent}${piece}`);
		else lines[lines.length - 1] = `${line} ${piece}`;
	}
	return lines.join('\n');
}

// Every key of the settings table, so a new one is listed here without a second edit.
const CONFIG_FLAG_HELP = wrap(
	settingEntries().map(([key, setting]) => (setting.required ? `${key} (required)` : key)),
	"  --config FILE          the run's configuration (JSON):",
	' '.repeat(25),
);

const SESSION_USAGE_LINES = `       agent-core session list --session ID [--redis-url URL | --context memory]
       agent-core session fork --session ID --to-session ID --turn N [--redis-url URL | --context memory]
       agent-core session rewind --session ID --turn N [--redis-url URL | --context memory]
                      (each also [--context-scope shared|workflow --workflow-id ID])`;

/** The usage of \`agent-core session\`, shown with its command-line mistakes. */
export const SESSION_USAGE = `usage:${SESSION_USAGE_LINES.slice('usage:'.length)}`;

const AUDIT_USAGE_LINES = `       agent-core audit verify --postgres URL --run ID [--digest HEX]
       agent-core audit replay --postgres URL (--run ID | --since DATE [--workflow ID] [--limit N]) [--unverified]
                      [--model ID] [--with-config FILE] [--run-read-only] [--files DIR] [provider and fallback flags as for run]
       agent-core audit replay --postgres URL --guardrails FILE (--run ID | --since DATE [--workflow ID] [--limit N]) [--json]
       agent-core audit fork --postgres URL --run ID --step N [--observation FILE] [--unverified]
                      [--model ID] [--with-config FILE] [--files DIR] [provider and fallback flags as for run]`;

/** The usage of \`agent-core audit\`, shown with its command-line mistakes. */
export const AUDIT_USAGE = `usage:${AUDIT_USAGE_LINES.slice('usage:'.length)}`;

const EVAL_USAGE_LINES = `       agent-core eval --dataset FILE.jsonl --config FILE [--gates FILE] [--results FILE.jsonl]
                      [--concurrency N] [the provider, fallback, --system and --redis-url flags of run]`;

/** The usage of \`agent-core eval\`, shown with its command-line mistakes. */
export const EVAL_USAGE = `usage:${EVAL_USAGE_LINES.slice('usage:'.length)}`;

export const USAGE = `usage: agent-core run --config FILE (--prompt TEXT | --messages-json FILE) [--file PATH ...]
                      [--provider openai|gemini] [--base-url URL] [--api-key KEY]
                      [--fallback-provider openai|gemini --fallback-model ID [--fallback-base-url URL]
                       [--fallback-api-key KEY]]
                      [--system TEXT]
                      [--session ID --context memory|redis [--busy reject|wait|latest|off] [--window all|turns]
                       [--context-scope shared|workflow [--workflow-id ID]]]
                      [--redis-url URL] [--run-key KEY]
                      [--stream [--stream-answer checked]]
                      [--audit-postgres URL [--audit-retention-days N]]
       agent-core resume --config FILE --state FILE (--approve | --deny REASON | --edit ARGS_JSON | --decisions JSON) [--file PATH ...]
                      [provider, fallback, --redis-url, --audit-* and --stream flags as for run]
${AUDIT_USAGE_LINES}
${SESSION_USAGE_LINES}
${EVAL_USAGE_LINES}`;

export const HELP = `${USAGE}

Runs one agent task and prints its result as JSON: final_answer, finish_reason, trace, used_tools, usage.

${CONFIG_FLAG_HELP}
  --prompt TEXT          the user's message; or --messages-json FILE: a [{role, content}] conversation
                         that ends with the user's message
  --file PATH            a file sent with the message (repeatable): images and PDFs as parts, text files as
                         text; its type is read from its bytes (see docs/files.md). resume: the paused run's
                         files again (its state keeps only their hashes)
  --provider NAME        openai (default; any OpenAI-compatible endpoint) or gemini
  --base-url URL         the endpoint (else OPENAI_BASE_URL / GEMINI_BASE_URL, else the provider's own)
  --api-key KEY          else OPENAI_API_KEY / GEMINI_API_KEY
  --fallback-provider NAME, --fallback-model ID, --fallback-base-url URL, --fallback-api-key KEY
                         a second model: when a model call fails after its retries or times out, it
                         answers that step and the rest of the run (URL from the same variables; the
                         environment key only on the primary's origin, elsewhere give --fallback-api-key)
  --system TEXT          instructions added to the system prompt
  --session ID           keep a conversation: each run reads the session's history and stores its turn
                         (with the summary and tool results the run returns), with --context redis (default;
                         --redis-url, else REDIS_URL, else 127.0.0.1:6379) or --context memory (this process only)
  --busy POLICY          with --session, when another run is answering the session: reject (default: exit 2,
                         "session … is busy with another run"), wait (up to 30 s), latest (this run takes it
                         over; the earlier run stores nothing), off (no lock)
  --window all|turns     with --session: every live turn, which the run fits to the model by tokens (default),
                         or the newest 20 turns
  --context-scope SCOPE  with --session: shared (default: the session ID is the whole key, as Agent Context
                         versions 1-2 keep it) or workflow (the key holds --workflow-id ID too, as Agent
                         Context version 3 keeps it); session list, fork and rewind take both flags too
  --redis-url URL        the Redis of --session, --run-key, the config's shared_budget and the pins of
                         mcp_servers tools (else REDIS_URL, else redis://127.0.0.1:6379); a shared budget is
                         counted there, across processes
  --run-key KEY          a durable run: each completed step is checkpointed in Redis under KEY (kept a day,
                         sealed and signed with AGENT_CORE_STATE_SECRET, required then); the same command
                         again with KEY goes on after the last completed step without asking the model or
                         running a tool again, or prints the finished run's result. A call with side effects
                         that started and was never recorded as done is not run again (interrupted_call;
                         with approval_required, awaiting_approval); http_request sends an Idempotency-Key
  --stream               print the run's events as they happen, one JSON object per line (NDJSON):
                         {"type":"step_start","step":1}, {"type":"action","step":1,"tool":..,"summary":..},
                         {"type":"observation",..,"ok":true,"summary":..}, {"type":"answer_delta","text":..}
                         (the final answer's text as the model writes it), {"type":"answer_restart","reason":..}
                         (drop the answer text so far), {"type":"done","finish_reason":..}; then the result
                         as the last line, compact
  --stream-answer checked
                         with --stream, send the answer's text only once the reply has closed and been checked
                         as the answer, in one answer_delta: no text of a reply that turns out not to be the
                         answer is ever printed (default: as-written, voided by answer_restart)

  --audit-postgres URL   keep the run in this PostgreSQL database (tables created on first use): the
                         output's audit.run_id names it; a row not stored is said on stderr
  --audit-retention-days N  delete audited runs older than N days (checked after a write)

OpenTelemetry: with OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, each run
exports a span for the run, each model call and each tool call over OTLP/HTTP (gen_ai.* attributes, no
prompts, answers or secrets); OTEL_SERVICE_NAME names the service (default agent-core).

audit verify recomputes a stored run's hash chains and names the first part that was changed (--digest: the
audit.record_digest the run's output carried, which proves every stored field, or its trace_digest, which
proves config, tool schemas and steps); audit replay re-runs its loop from the stored
replies and observations, without asking a model or running a tool, and says whether it reaches the same
finish_reason and answer. Both exit 3 when the run does not check out. With --model, --with-config or a
provider flag, audit replay is counterfactual: each selected run's question goes to that candidate (really
called); a tool call the record has (same tool, same canonical args) is answered from the record, a new
read-only call runs only with --run-read-only, a new call with side effects is refused and reported. The
report gives per run and in total: same answer, same actions, the first divergence (step, what each did),
tokens, cost, elapsed time and finish reason against the original; exit 3 when any run differs. audit fork
starts a new run from step N of a stored run (steps up to N from the record, --observation FILE replacing
step N's observation), the model going on live; its audit row names the run and step it was forked from.
A run given files keeps only their names, types, sizes and hashes: a candidate or a fork needs them again,
--files DIR (a folder holding them, matched by SHA-256); a missing one is named and nothing is asked.
replay and fork first verify each row they use as audit verify does: a row that does not verify is refused
(exit 3, run and part named; with --since, one such row refuses them all) before any model is asked or tool
runs. --unverified uses it anyway, each report saying unverified and why, a fork's row recording
forked_from.verified false. Whether a call has side effects is the real tool's rule, never the row's.
audit replay --guardrails FILE runs the built-in guardrails of FILE (a JSON list, as the guardrails setting)
over each verified run's recorded input, calls' args, observations and answers, asking no model and running
no tool: per run, which guardrail would have denied, redacted or blocked, at which step, point, tool and
call (never the text found), and which runs would have ended differently; --json prints the report as JSON.
Exit 0, or 3 when a selected row does not verify (then no run is checked).

A config with approval_required pauses before such a call: the run ends awaiting_approval with
pending_action and run_state, signed with AGENT_CORE_STATE_SECRET (required then: at least 16 characters, 8 of them different;
openssl rand -hex 32 makes one).
resume continues it: --state FILE holds the run_state value, unchanged; --approve runs the call once, --deny
tells the model it was refused and why, --edit runs it with these arguments (checked like any call). A batch
paused at a call lists every call in pending_action.batch; --decisions '{"2": {"approve": true}, "3": {"deny":
"why"}}' decides several by number (the others decide the call it waits at). With --redis-url (or REDIS_URL),
a used state is recorded there and refused the second time.
A config with mode "plan" and approve_plan pauses on the whole plan (pending_plan) before any step runs:
--approve runs exactly that plan, --deny REASON ends the run plan_rejected, --edit '{"steps": [...]}' runs your
plan instead (checked as the model's is).

session list prints a session's turns in order (number, time, sizes, live / summarised / rewound); session
fork copies the turns up to --turn N into a new session --to-session (refused if it exists; the source is
untouched); session rewind moves the turns after N to the session's archive (kept 30 days, not deleted).

eval runs each case of --dataset (JSONL: {"id"?, "input": text or [{role, content}], "expected"?: gates}) with
--config, up to --concurrency N at once (default 4, at most 32), and holds it to its gates: answer, contains,
regex (RE2), schema, tools, not_tools, no_tool_errors, finish_reason (default "final"), max_steps, max_tokens,
max_cost; --gates FILE adds {"every_case": {gates}, "thresholds": {pass_rate, max_failed, max_total_cost,
max_total_tokens, max_tool_errors}}. It prints a summary table, writes one JSON line per case to --results,
and exits 0 when every threshold holds (without pass_rate or max_failed: when every case passes), 3 when one
does not, 2 for a bad command line, config, gate or dataset line (named by its number, before any model call).

Exit status: 0 when the run ended (any finish_reason; read it), 2 for a bad command line, configuration
or input, 1 for anything unexpected.`;
