// The request bodies of the bench: what every row sends.

// A 4-sentence context: a stress decision on it makes 1 base call + 4 without-fact calls.
export const CONTEXT =
  'The team already runs PostgreSQL in production and knows it well. ' +
  'Billing needs strict multi-row transactions and an audit trail. ' +
  'Only two engineers share the on-call rotation. ' +
  'The budget for new managed infrastructure this year is small.';

export const STANDARD = {
  mode: 'choice',
  question: 'Which database should the team adopt for the new billing service?',
  context: CONTEXT,
  options: ['PostgreSQL', 'MongoDB', 'DynamoDB'],
};
export const STRESS = { ...STANDARD, depth: 'stress' };

// 12 facts, the most a stress decision checks one by one: 1 base call + 12 without-fact calls.
export const CONTEXT_12 = [
  'The team already runs PostgreSQL in production and knows it well.',
  'Billing needs strict multi-row transactions and an audit trail.',
  'Only two engineers share the on-call rotation.',
  'The budget for new managed infrastructure this year is small.',
  'Invoices must be reproducible for seven years.',
  'Traffic peaks at the end of each month.',
  'The data model has about forty related tables.',
  'Reports are written in SQL by the finance team.',
  'The company runs on a single cloud provider.',
  'Backups are tested every quarter.',
  'Two of the engineers have used MongoDB before.',
  'The launch date is in four months.',
].join(' ');

export const STANDARD_12 = { ...STANDARD, context: CONTEXT_12 };
export const STRESS_12 = { ...STANDARD_12, depth: 'stress' };

const TOOL_ARGUMENTS = { mode: STANDARD.mode, question: STANDARD.question, context: STANDARD.context, options: STANDARD.options };

/** weigh_decision in the 2026-07-28 era: one self-contained request, the revision in `_meta`. */
export const MCP_MODERN = {
  headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'weigh_decision' },
  message: {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'weigh_decision',
      arguments: TOOL_ARGUMENTS,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'decide-bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  },
};

/** weigh_decision in the 2025 era (2025-11-25), stateless: a tools/call needs no initialize first. */
export const MCP_LEGACY = {
  headers: { 'mcp-protocol-version': '2025-11-25' },
  message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'weigh_decision', arguments: TOOL_ARGUMENTS } },
};
