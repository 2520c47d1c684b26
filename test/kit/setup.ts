/**
 * Runs before every test file (vitest `setupFiles`), also where files share a worker's modules:
 * the temporary directories a file made outside its tests go after its last test.
 */
import { afterAll } from 'vitest';
import { removeLeftovers } from './temp-dir.js';

afterAll(removeLeftovers);
