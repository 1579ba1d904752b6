import { VERSION } from '../version.js';

/** The protocol revisions served (docs/api.md, "Tool server"): the modern era and three of the 2025 era, newest first. */
export const MCP_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];

/** How the tool server and the bridge name themselves (the package's version). */
export const SERVER_INFO = { name: 'decide', title: 'decide: structured decisions', version: VERSION };
