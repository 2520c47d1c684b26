/** The MCP server config shape lives with the rest of the config schema (src/config/mcp-schema.ts). */
export * from '../../config/mcp-schema.js';
