import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { InputError, type TraceStep } from '../../src';
import {
  compactSteps,
  type ContextStore,
  DEFAULT_KEY_PREFIX,
  DEFAULT_MAX_STORED_TURNS,
  DEFAULT_MAX_TURNS,
  DEFAULT_TTL_SECONDS,
  persistSession,
  prepareSession,
  type ProviderFormats,
  RedisContextStore,
  resolveCharacterBudget,
  sessionStoreKey,
  sharedMemoryContextStore,
  toProviderFormats,
} from '../../src/context';
import { mapItems } from '../shared/items';
import { readField } from '../shared/default-expressions';
import { nodeError, toNodeError } from '../shared/node-errors';
import { redisConnectionFromCredential } from '../shared/redis-credential';

type Operation = 'prepare' | 'persist' | 'clear' | 'get';

/** A store for this execution: Redis opens its own connection (closed in `finally`), memory is the process's one. */
async function openStore(context: IExecuteFunctions): Promise<{ store: ContextStore; memory: boolean }> {
  const storage = context.getNodeParameter('storage', 0) as 'redis' | 'memory';
  // Read at execute time: each execution may land on another worker, whose memory holds other sessions.
  if (storage === 'memory' && process.env.EXECUTIONS_MODE === 'queue') {
    throw nodeError(
      context,
      'In-Memory storage does not work in queue mode: each execution may run on another worker, which does not see this history',
      0,
      "Set Storage to Redis (and pick a Redis credential). n8n refuses its own Simple Memory in queue mode for the same reason.",
    );
  }
  if (storage === 'memory') return { store: sharedMemoryContextStore(), memory: true };
  const credentials = await context.getCredentials('agentCoreRedisApi');
  const store = new RedisContextStore({ shared: redisConnectionFromCredential(credentials) });
  return { store, memory: false };
}

async function runItem(context: IExecuteFunctions, store: ContextStore, operation: Operation, itemIndex: number): Promise<IDataObject> {
  const item = context.getInputData()[itemIndex];
  const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
  const address = {
    sessionId: readField(context, 'sessionId', itemIndex, ''),
    keyPrefix: typeof options.keyPrefix === 'string' ? options.keyPrefix : DEFAULT_KEY_PREFIX,
  };

  if (operation === 'prepare') {
    const level = context.getNodeParameter('historySize', itemIndex, 'full') as string;
    const budget = resolveCharacterBudget(level === 'custom' ? (context.getNodeParameter('maxCharacters', itemIndex, 0) as number) : level);
    if (!budget.ok) throw new InputError('maxCharacters', budget.issues.join('; '));
    const prepared = await prepareSession(store, {
      ...address,
      window: {
        maxTurns: context.getNodeParameter('maxTurns', itemIndex, DEFAULT_MAX_TURNS) as number,
        maxCharacters: budget.value,
        maxScannedTurns: (options.maxStoredTurns as number) || undefined,
      },
      userMessage: readField(context, 'userMessage', itemIndex, '') as string | undefined,
    });
    const formats = (options.providerFormats as Array<keyof ProviderFormats> | undefined) ?? [];
    const all = formats.length ? toProviderFormats(prepared.messages_json) : undefined;
    return {
      ...item.json,
      ...prepared,
      ...(all ? { formats: Object.fromEntries(formats.map((name) => [name, all[name]])) } : {}),
    } as unknown as IDataObject;
  }
  if (operation === 'persist') {
    const trace = item.json.trace as TraceStep[] | undefined;
    const result = await persistSession(store, {
      ...address,
      messages: readField(context, 'messages', itemIndex),
      maxStoredTurns: (options.maxStoredTurns as number) ?? DEFAULT_MAX_STORED_TURNS,
      ...(typeof options.maxTurnCharacters === 'number' ? { maxTurnCharacters: options.maxTurnCharacters } : {}),
      storeUnanswered: options.storeUnanswered === true,
      ttlSeconds: (options.ttlSeconds as number) ?? DEFAULT_TTL_SECONDS,
      ...(typeof options.systemMessage === 'string' && options.systemMessage !== '' ? { systemMessage: options.systemMessage } : {}),
      ...(options.storeSteps && Array.isArray(trace) ? { steps: compactSteps(trace) } : {}),
    });
    // The agent's output passes through, so a Respond to Webhook node after persist still sees final_answer.
    return { ...item.json, context: result } as IDataObject;
  }
  const { sessionId, key } = sessionStoreKey(address);
  if (operation === 'clear') return { session_id: sessionId, ...(await store.clear(key)) };
  const snapshot = await store.get(key);
  return {
    session_id: sessionId,
    turns: snapshot.turns,
    stored_turns: snapshot.turns.length,
    skipped_corrupt: snapshot.skippedCorrupt,
    system_message: snapshot.systemMessage ?? null,
    ttl_seconds: snapshot.ttlSeconds,
  } as unknown as IDataObject;
}

/** Every item is handled on its own (its own session); errors stay with their item under continueOnFail(). */
export async function agentContextExecute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const items = this.getInputData();
  const operation = this.getNodeParameter('operation', 0) as Operation;
  let opened: { store: ContextStore; memory: boolean } | undefined;
  try {
    opened = await openStore(this);
  } catch (error) {
    const nodeError = toNodeError(this, error, 0);
    if (!this.continueOnFail()) throw nodeError;
    return [items.map((_, itemIndex) => ({ json: { error: nodeError.message }, pairedItem: { item: itemIndex } }))];
  }
  const { store, memory } = opened;
  try {
    return [await mapItems(this, async (itemIndex) => ({ json: await runItem(this, store, operation, itemIndex), pairedItem: { item: itemIndex } }))];
  } finally {
    if (!memory) await store.close();
  }
}
