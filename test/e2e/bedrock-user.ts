/**
 * A test file's Bedrock fake and a user beside its workspace: a HOME with an empty `~/.aws` for
 * the AWS SDK to read, and no AWS key in keen's environment unless a test adds one. Started
 * before the file's first test; the fake is closed, and the folders removed, after its last.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startBedrockFake } from '../fakes/bedrock-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { assertBuilt } from './cli-fixtures.js';

export interface BedrockUser {
  readonly fake: ScriptedServer;
  readonly ws: Workspace;
  /** The user's HOME, holding `.aws/` (mode 0700). */
  readonly home: string;
  /** keen's environment: the fake's address, the region, HOME at the user's; `more` adds to it. */
  env(more?: Record<string, string | undefined>): Record<string, string | undefined>;
}

export function bedrockUser(): BedrockUser {
  let started: { fake: ScriptedServer; ws: Workspace; home: string } | undefined;
  beforeAll(async () => {
    assertBuilt();
    const fake = await startBedrockFake();
    const ws = tempWorkspace();
    const home = path.join(ws.root, 'user-home');
    fs.mkdirSync(path.join(home, '.aws'), { recursive: true, mode: 0o700 });
    started = { fake, ws, home };
  });
  afterAll(() => started?.fake.close());
  const get = () => {
    if (!started) throw new Error('bedrockUser: the fake starts in beforeAll');
    return started;
  };
  return {
    get fake() {
      return get().fake;
    },
    get ws() {
      return get().ws;
    },
    get home() {
      return get().home;
    },
    env: (more = {}) => ({ HOME: get().home, AWS_REGION: 'us-east-1', AWS_EC2_METADATA_DISABLED: 'true', AWS_ENDPOINT_URL_BEDROCK_RUNTIME: get().fake.url, ...more }),
  };
}
