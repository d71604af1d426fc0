import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { action, final, useScriptedServer } from './support/agent';
import { runCli } from './support/cli';
import { PRIVATE_ALLOWED, sendJson, startServer, useLoopbackGuard, type TestServer } from './support/http-servers';
import { deleteKeysByPrefix, useTestRedis } from './support/redis';

useLoopbackGuard();

/** Issue #18 through the CLI: `run` pauses, `resume` continues once, with AGENT_CORE_STATE_SECRET. */
describe('agent-core run / resume with approval', () => {
  const server = useScriptedServer();
  const redis = useTestRedis();
  const SECRET = { AGENT_CORE_STATE_SECRET: 'cli-approval-secret-0123456789' };
  let folder: string;
  let payments: TestServer;
  beforeAll(() => (folder = mkdtempSync(join(tmpdir(), 'agent-core-approval-'))));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  beforeEach(async () => {
    payments = await startServer((_, response) => sendJson(response, { charged: true }));
  });

  const write = (name: string, value: unknown) => {
    const path = join(folder, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  };
  const configFile = () => write('config.json', { model: 'm', allowed_tools: ['http_request'], approval_required: ['http_request'], tool_settings: { http_request: PRIVATE_ALLOWED } });
  const provider = () => ['--base-url', server().openaiBaseUrl, '--api-key', 'k'];

  async function pause(): Promise<string> {
    server().setScript([action('http_request', { url: `${payments.url}/charge`, method: 'POST' })]);
    const run = await runCli(['run', '--config', configFile(), '--prompt', 'Charge it.', ...provider()], SECRET);
    expect(run.code).toBe(0);
    const output = JSON.parse(run.stdout);
    expect(output).toMatchObject({ finish_reason: 'awaiting_approval', pending_action: { tool: 'http_request' } });
    expect(payments.requests).toHaveLength(0);
    return write('state.json', output.run_state);
  }

  it('resume --approve runs the call once and finishes; the same state resumed again is refused (Redis)', async () => {
    const state = await pause();
    server().setScript([final('Charged.'), final('again')]);
    const redisFlag = ['--redis-url', redis.url];
    const resumed = await runCli(['resume', '--config', configFile(), '--state', state, '--approve', ...provider(), ...redisFlag], SECRET);
    expect(resumed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(resumed.stdout)).toMatchObject({ finish_reason: 'final', final_answer: 'Charged.' });
    expect(payments.requests).toHaveLength(1);
    const replay = await runCli(['resume', '--config', configFile(), '--state', state, '--approve', ...provider(), ...redisFlag], SECRET);
    expect(replay).toMatchObject({ code: 2, stdout: '', stderr: 'agent-core: run_state was already used to resume this run; a paused run resumes once\n' });
    expect(payments.requests).toHaveLength(1);
    await deleteKeysByPrefix(redis.admin, 'agent_core:run_state:');
  });

  it('resume --deny never reaches the target; without --redis-url it says the state is not recorded', async () => {
    const state = await pause();
    server().setScript([final('Not charged.')]);
    const resumed = await runCli(['resume', '--config', configFile(), '--state', state, '--deny', 'already paid', ...provider()], SECRET);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toBe('agent-core: no --redis-url: this run state is not recorded as used, so it could be resumed again\n');
    expect(JSON.parse(resumed.stdout).finish_reason).toBe('final');
    expect(payments.requests).toHaveLength(0);
  });

  it.each([
    [['--approve', '--deny', 'no'], 'agent-core: resume needs exactly one of --approve, --deny REASON, --edit ARGS_JSON'],
    [['--edit', '{oops'], /^agent-core: --edit: not valid JSON/],
    [['--approve', '--prompt', 'x'], 'agent-core: --prompt does not go with resume: the paused run holds its conversation'],
  ])('refuses resume %j with one line and exit 2', async (flags, message) => {
    const state = write('any-state.json', { v: 1, payload: {}, signature: '00' });
    const refused = await runCli(['resume', '--config', configFile(), '--state', state, ...(flags as string[]), ...provider()], SECRET);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
  });

  it('refuses to run a config with approval_required without AGENT_CORE_STATE_SECRET, before any model call', async () => {
    const run = await runCli(['run', '--config', configFile(), '--prompt', 'Charge it.', ...provider()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^agent-core: pausing for approval needs a signing key of at least 16 characters/);
    expect(server().requests).toHaveLength(0);
  });
});
