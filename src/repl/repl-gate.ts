import { createSessionGate, type ExplainingGate, type Policy, type SessionGate } from '../tools/permissions/index.js';
import type { PermissionRequest } from '../tools/types.js';
import type { PermissionBroker } from './permission-broker.js';

/**
 * The REPL's gate: the session's permission policy decides (modes, rules, `--yolo` as
 * bypassPermissions); earlier "for this session" answers pass, and what the policy asks about is
 * asked through the broker. The policy is built when the session opens, hence `configure`.
 */
export class ReplGate implements ExplainingGate {
  private inner?: SessionGate;

  constructor(
    private readonly broker: PermissionBroker,
    private readonly yolo: boolean,
  ) {}

  private fromSession = false;

  /** True once a session's policy was installed (`configure`). */
  get configured(): boolean {
    return this.fromSession;
  }

  configure(policy: Policy): void {
    this.inner = createSessionGate((request) => this.broker.ask(request), policy);
    this.fromSession = true;
  }

  private live(): SessionGate {
    if (!this.inner) this.inner = createSessionGate((request) => this.broker.ask(request), { yolo: this.yolo });
    return this.inner;
  }

  get additionalDirs(): readonly string[] {
    return this.live().additionalDirs ?? [];
  }

  get policy(): Policy {
    return this.live().policy;
  }

  async check(request: PermissionRequest) {
    return this.live().check(request);
  }

  denialMessage(request: PermissionRequest): string {
    return this.live().denialMessage!(request);
  }
}
