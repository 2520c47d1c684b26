import { createSessionGate, type ExplainingGate, type Policy, type SessionAnswer, type SessionGate } from '../tools/permissions/index.js';
import type { PermissionRequest } from '../tools/types.js';

/**
 * The gate of an ACP session: the session's policy decides first (modes, rules, bypass), earlier
 * "always" answers pass, and what the policy asks about goes to the client's
 * `session/request_permission` through `ask`. The policy exists once the session opened, hence
 * `configure`; before that every ask is refused.
 */
export class AcpGate implements ExplainingGate {
  private inner?: SessionGate;

  constructor(private readonly ask: (request: PermissionRequest) => Promise<SessionAnswer>) {}

  configure(policy: Policy): void {
    this.inner = createSessionGate(this.ask, policy);
  }

  private live(): SessionGate {
    this.inner ??= createSessionGate(async () => 'deny', {});
    return this.inner;
  }

  get additionalDirs(): readonly string[] {
    return this.live().additionalDirs ?? [];
  }

  check(request: PermissionRequest) {
    return this.live().check(request);
  }

  denialMessage(request: PermissionRequest): string {
    return this.live().denialMessage!(request);
  }
}
