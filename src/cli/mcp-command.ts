// `sightline mcp --url <server>`: Sightline's MCP tools on stdin/stdout for an MCP client such as
// Claude Desktop, relayed to the server's POST /mcp (docs/mcp.md). The API token comes from the
// environment, as MCP clients pass secrets, never from a flag that `ps` would show.
import type { Command } from 'commander';
import { ConfigError } from '../config/config.js';

export const TOKEN_VARIABLE = 'SIGHTLINE_TOKEN';

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description(
      `Serve Sightline's MCP tools on stdin/stdout for an MCP client; the API token is read from ${TOKEN_VARIABLE}`,
    )
    .requiredOption('--url <server>', 'the Sightline server to call, e.g. https://sightline.example.com')
    .action(async (options: { url: string }) => {
      const token = process.env[TOKEN_VARIABLE];
      if (!token) {
        throw new ConfigError(
          `${TOKEN_VARIABLE} is not set: give the MCP client an API token (slt_…) in this environment variable`,
        );
      }
      const { mcpEndpoint, runStdioBridge } = await import('../mcp/stdio-bridge.js');
      await runStdioBridge(mcpEndpoint(options.url), token);
    });
}
