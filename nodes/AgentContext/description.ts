import type { INodeProperties } from 'n8n-workflow';
import {
  DEFAULT_KEY_PREFIX,
  DEFAULT_MAX_HISTORY_CHARACTERS,
  DEFAULT_MAX_STORED_TURNS,
  DEFAULT_MAX_TURN_CHARACTERS,
  DEFAULT_MAX_TURNS,
  DEFAULT_TTL_SECONDS,
  HISTORY_CHARACTER_LEVELS,
} from '../../src/context';

const onlyFor = (...operation: string[]) => ({ show: { operation } });

/** Panel of the Agent Context node: prepare → Agent Core → persist, plus clear and get. */
export const agentContextProperties: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    options: [
      { name: 'Prepare', value: 'prepare', action: 'Load history for the agent', description: 'Load the session history and emit messages_json for Agent Core' },
      { name: 'Persist', value: 'persist', action: 'Save the agent turn', description: "Append this run's user message and answer to the session" },
      { name: 'Clear', value: 'clear', action: 'Delete a session', description: "Delete the session's history" },
      { name: 'Get', value: 'get', action: 'Read a session', description: 'Return the stored history as it is, for inspection' },
    ],
    default: 'prepare',
  },
  {
    displayName: 'Storage',
    name: 'storage',
    type: 'options',
    noDataExpression: true,
    options: [
      { name: 'Redis', value: 'redis', description: 'Shared by every n8n process and worker; survives restarts' },
      { name: 'In-Memory (This Process Only)', value: 'memory', description: 'Kept in this n8n process: not shared between n8n instances or queue-mode workers; lost on restart' },
    ],
    default: 'memory',
  },
  {
    displayName: 'In-memory history lives in this n8n process only: restarts lose it, and in queue mode it is refused (workers do not share it). Use Redis in production.',
    name: 'memoryNotice',
    type: 'notice',
    default: '',
    displayOptions: { show: { storage: ['memory'] } },
  },
  {
    displayName: 'Session ID',
    name: 'sessionId',
    type: 'string',
    // session_id from a webhook body or an earlier Agent Context node; sessionId from the Chat Trigger and Chat Hub.
    default: '={{ $json.session_id ?? $json.body?.session_id ?? $json.sessionId }}',
    required: true,
    description: "The conversation this item belongs to: by default the session_id the webhook caller sends, or the Chat Trigger's sessionId",
  },
  {
    displayName: 'User Message',
    name: 'userMessage',
    type: 'string',
    typeOptions: { rows: 2 },
    default: '={{ $json.chatInput ?? $json.body?.prompt ?? $json.prompt }}',
    description: "The new message to answer (by default the Chat Trigger's chatInput or a webhook body's prompt); appended to messages_json after the history. Leave empty to emit the history only.",
    displayOptions: onlyFor('prepare'),
  },
  {
    displayName: 'Messages',
    name: 'messages',
    type: 'json',
    default: '={{ $json.messages }}',
    required: true,
    description: 'The new turns to store: the "messages" field of the Agent Core output',
    displayOptions: onlyFor('persist'),
  },
  {
    displayName: 'Max Turns',
    name: 'maxTurns',
    type: 'number',
    typeOptions: { minValue: 0 },
    default: DEFAULT_MAX_TURNS,
    description: 'Newest turns (one request and its answer) given to the agent; 0 = no turn limit',
    displayOptions: onlyFor('prepare'),
  },
  {
    displayName: 'History Size',
    name: 'historySize',
    type: 'options',
    options: [
      { name: 'Full', value: 'full', description: `Every turn within Max Turns, up to ${DEFAULT_MAX_HISTORY_CHARACTERS} characters (Custom sets more)` },
      { name: 'Normal', value: 'normal', description: `${HISTORY_CHARACTER_LEVELS.normal} characters` },
      { name: 'Compact', value: 'compact', description: `${HISTORY_CHARACTER_LEVELS.compact} characters` },
      { name: 'Minimal', value: 'minimal', description: `${HISTORY_CHARACTER_LEVELS.minimal} characters` },
      { name: 'Custom', value: 'custom' },
    ],
    default: 'full',
    description: 'Character budget of the history; whole turns are dropped from the oldest, never split',
    displayOptions: onlyFor('prepare'),
  },
  {
    displayName: 'Max Characters',
    name: 'maxCharacters',
    type: 'number',
    typeOptions: { minValue: 0 },
    default: 8000,
    displayOptions: { show: { operation: ['prepare'], historySize: ['custom'] } },
  },
  {
    displayName: 'Options',
    name: 'options',
    type: 'collection',
    placeholder: 'Add Option',
    default: {},
    options: [
      { displayName: 'Key Prefix', name: 'keyPrefix', type: 'string', default: DEFAULT_KEY_PREFIX, description: 'Prefix of the Redis keys (and memory entries) of this history' },
      { displayName: 'Max Stored Turn Size', name: 'maxTurnCharacters', type: 'number', typeOptions: { minValue: 100 }, default: DEFAULT_MAX_TURN_CHARACTERS, description: 'Persist: characters one turn (question and answer) keeps; longer messages are cut with a visible marker' },
      { displayName: 'Max Stored Turns', name: 'maxStoredTurns', type: 'number', typeOptions: { minValue: 1 }, default: DEFAULT_MAX_STORED_TURNS, description: 'Persist keeps at most this many newest turns per session' },
      {
        displayName: 'Provider Formats',
        name: 'providerFormats',
        type: 'multiOptions',
        options: [
          { name: 'OpenAI', value: 'openai' },
          { name: 'Gemini', value: 'gemini' },
          { name: 'Anthropic', value: 'anthropic' },
        ],
        default: [],
        description: 'Prepare: also emit the conversation in these providers\' own formats',
      },
      { displayName: 'Store Steps', name: 'storeSteps', type: 'boolean', default: false, description: 'Whether persist also keeps a compact record of the agent steps (tool names, errors, timings) from the "trace" field' },
      { displayName: 'Store Unanswered Question', name: 'storeUnanswered', type: 'boolean', default: false, description: 'Whether persist also stores a run that ended without an answer (a limit, an error), marked as unanswered: kept for Get, never replayed to the model. Off: such a run stores nothing.' },
      { displayName: 'System Message', name: 'systemMessage', type: 'string', default: '', description: "Persist: store or replace the session's system message; it is always kept by prepare" },
      { displayName: 'TTL (Seconds)', name: 'ttlSeconds', type: 'number', typeOptions: { minValue: 0 }, default: DEFAULT_TTL_SECONDS, description: 'The session expires this long after its last persist; 0 = never' },
    ],
  },
];
