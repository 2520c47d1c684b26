/**
 * A file-system layer for the session store that fails at a chosen call: the real write,
 * fdatasync and truncate on the real file, except call number `failAt` (counted over every
 * write-path call after `arm`) throws an errno error like the kernel's (ENOSPC, EIO).
 */
import type { FileHandle } from 'node:fs/promises';
import { NODE_STORE_IO, type StoreIo } from '../../src/transcript/store.js';

export type FaultOp = 'write' | 'datasync' | 'truncate';

export class FailingIo implements StoreIo {
  /** Calls counted since `arm`, per operation and in total. */
  calls = 0;
  private failAt = 0;
  private op: FaultOp | undefined;
  private code = 'ENOSPC';
  /** How many calls failed. */
  failures = 0;

  /** Fail the `n`-th call (1-based) of `op` (or of any op when undefined) from now on, once. */
  arm(n: number, code: 'ENOSPC' | 'EIO' = 'ENOSPC', op?: FaultOp): void {
    this.calls = 0;
    this.failAt = n;
    this.code = code;
    this.op = op;
  }

  private maybeFail(op: FaultOp): void {
    if (this.failAt === 0) return;
    if (this.op && this.op !== op) return;
    this.calls++;
    if (this.calls === this.failAt) {
      this.failures++;
      const err = new Error(`${this.code}: ${this.code === 'ENOSPC' ? 'no space left on device' : 'i/o error'}, ${op}`) as NodeJS.ErrnoException;
      err.code = this.code;
      throw err;
    }
  }

  async write(fh: FileHandle, bytes: Buffer, offset: number, length: number) {
    this.maybeFail('write');
    return NODE_STORE_IO.write(fh, bytes, offset, length);
  }

  async datasync(fh: FileHandle) {
    this.maybeFail('datasync');
    return NODE_STORE_IO.datasync(fh);
  }

  async truncate(fh: FileHandle, size: number) {
    this.maybeFail('truncate');
    return NODE_STORE_IO.truncate(fh, size);
  }
}
