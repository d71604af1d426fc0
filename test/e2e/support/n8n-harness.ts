import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureN8n, type N8nInstallation } from '../../../scripts/n8n-cache';
import { createN8nInstance, readExampleWorkflows, useCredential, portInUse, type CredentialImport, type N8nInstance, type WorkflowJson } from '../../../scripts/n8n-local';
import { startScriptedServer, type Script, type ScriptedServer } from '../../../src/demo/scripted-server';
import { PhaseClock } from './phase-clock';

/** The example workflows every suite imports, by their production webhook path. */
export const WEBHOOKS = {
  /** examples/agent-core-webhook.json: the user-facing example, errors routed to an HTTP 400. */
  main: 'agent-core',
  /** examples/agent-core-webhook-strict-limits.json: the same with max_steps 1. */
  strictLimits: 'agent-core-strict',
  /** Test-only: the main example without its error branch, to see what n8n itself answers on a node error. */
  unrouted: 'agent-core-unrouted',
} as const;

/** The main example with the error output removed: Agent Core errors fail the execution, as by default. */
function withoutErrorRouting(example: WorkflowJson): WorkflowJson {
  const workflow: WorkflowJson = JSON.parse(JSON.stringify(example));
  workflow.name = `${workflow.name} (errors not routed)`;
  for (const node of workflow.nodes) {
    if (node.type === 'n8n-nodes-base.webhook') {
      node.parameters.path = WEBHOOKS.unrouted;
      node.webhookId = '32a0cd49-1583-4dff-8288-53b49dfc86be';
    }
    if (node.name === 'Agent Core') delete node.onError;
  }
  workflow.nodes = workflow.nodes.filter((node) => node.name !== 'Respond with Error');
  (workflow.connections['Agent Core'] as { main: unknown[] }).main.length = 1;
  return workflow;
}

const CREDENTIAL_TYPE = 'agentCoreOpenAiApi';
const INSTALL_TIMEOUT_MS = 45 * 60 * 1000;
const SET_UP_TIMEOUT_MS = 10 * 60 * 1000;

export interface WebhookResponse {
  status: number;
  contentType: string;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  body: any;
}

export interface AgentCoreInN8n {
  installation: N8nInstallation;
  n8n: N8nInstance;
  /** The scripted model server the imported credential points at. */
  model: ScriptedServer;
  /** POSTs a JSON body to a production webhook. */
  post(webhookPath: string, body: unknown): Promise<WebhookResponse>;
  /** Fails with the response and the tail of n8n's log unless the status is `status`. */
  expectStatus(response: WebhookResponse, status: number): void;
}

/**
 * For the enclosing describe block: the n8n line from the cache (installed on first use), a scripted model
 * server in this process, and a fresh n8n with the packed package installed as a community package, a
 * credential pointing at the model server and the example workflows imported and active. Everything is
 * stopped in afterAll, also when a scenario or the set-up failed, and afterAll fails if a port stays bound.
 */
export function useAgentCoreInN8n(line: 1 | 2, script: Script): () => AgentCoreInN8n {
  const clock = new PhaseClock(`n8n line ${line}`);
  let installation: N8nInstallation | undefined;
  let model: ScriptedServer | undefined;
  let n8n: N8nInstance | undefined;
  let userFolder: string | undefined;
  let context: AgentCoreInN8n | undefined;

  beforeAll(async () => {
    installation = await clock.time('install (cache)', () => ensureN8n(line));
    if (installation.reused) clock.note('install (cache)', 'reused');
  }, INSTALL_TIMEOUT_MS);

  beforeAll(async () => {
    if (!installation) throw new Error(`n8n line ${line} is not installed; see the error of the install step`);
    const nodesFolder = process.env.AGENT_CORE_E2E_NODES_FOLDER;
    if (!nodesFolder) throw new Error('AGENT_CORE_E2E_NODES_FOLDER is not set: run through jest.e2e.config.js, whose global set-up packs the package');
    model = await startScriptedServer({ script });
    const credential: CredentialImport = {
      id: 'agentCoreE2eCred',
      name: 'Agent Core e2e: scripted model',
      type: CREDENTIAL_TYPE,
      data: { apiKey: 'e2e-key', url: model.openaiBaseUrl },
    };
    const examples = readExampleWorkflows();
    const workflows = [...examples, withoutErrorRouting(examples[0])].map((workflow) => useCredential(workflow, CREDENTIAL_TYPE, credential));
    // Inside the run folder of the global set-up, which removes it even after a Ctrl-C.
    userFolder = fs.mkdtempSync(path.join(process.env.AGENT_CORE_E2E_RUN_FOLDER ?? os.tmpdir(), `n8n-${line}-`));
    n8n = await clock.time('set up (package, import, activate)', () =>
      createN8nInstance({ installation: installation!, nodesFolder, credentials: [credential], workflows, userFolder }),
    );
    await clock.time('n8n start until webhooks answer', () => n8n!.start({ webhookPaths: Object.values(WEBHOOKS) }));
    const { start: _start, ...setUpTimings } = n8n.timings;
    clock.note('set up (package, import, activate)', formatTimings(setUpTimings));
    clock.begin('scenarios');
    context = { installation: installation!, n8n, model, post: (webhookPath, body) => post(n8n!, webhookPath, body), expectStatus: (response, status) => expectStatus(n8n!, response, status) };
  }, SET_UP_TIMEOUT_MS);

  afterAll(async () => {
    clock.end('scenarios');
    const port = n8n?.port;
    await clock.time('stop', async () => {
      await n8n?.stop({ keepUserFolder: Boolean(process.env.AGENT_CORE_E2E_KEEP) });
      await model?.close();
    });
    if (userFolder && !process.env.AGENT_CORE_E2E_KEEP) fs.rmSync(userFolder, { recursive: true, force: true });
    clock.print();
    if (n8n && (await n8n.portsInUse())) throw new Error(`a port of the stopped n8n (${port} or its task broker ${n8n.brokerPort}) is still bound`);
    if (model && (await portInUse(Number(new URL(model.url).port)))) throw new Error(`the scripted model server's port ${model.url} is still bound`);
  }, 60000);

  return () => {
    if (!context) throw new Error(`n8n line ${line} did not start; see the beforeAll error above`);
    return context;
  };
}

async function post(n8n: N8nInstance, webhookPath: string, body: unknown): Promise<WebhookResponse> {
  const response = await fetch(n8n.webhookUrl(webhookPath), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(90000),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, body: parsed };
}

function expectStatus(n8n: N8nInstance, response: WebhookResponse, status: number): void {
  if (response.status === status) return;
  throw new Error(`expected HTTP ${status}, got ${response.status}: ${response.text.slice(0, 2000)}\n--- n8n log (tail) ---\n${n8n.logTail(4000)}`);
}

function formatTimings(timings: Record<string, number>): string {
  return Object.entries(timings)
    .map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)} s`)
    .join(', ');
}
