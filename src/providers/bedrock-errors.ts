import type { LlmError } from '../core/errors.js';
import { isAbortError, llmError } from '../core/errors.js';
import { isContextOverflow, isNetworkFailure } from './kit/error-table.js';

export interface BedrockErrorContext {
  modelId: string;
  /** The profile in use, to name it in credential errors. */
  profile?: string;
  signal?: AbortSignal;
}

const THROTTLED = new Set(['ThrottlingException', 'ServiceQuotaExceededException', 'TooManyRequestsException']);
const BAD_CREDENTIALS = new Set([
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'IncompleteSignature',
  'InvalidClientTokenId',
  'MissingAuthenticationTokenException',
  'MissingAuthenticationToken',
  'SignatureDoesNotMatch',
]);

/**
 * Maps anything the Bedrock SDK throws (service exceptions, credential-chain failures, socket
 * errors, aborts) to one readable line and an error kind. Never throws.
 */
export function bedrockError(err: unknown, ctx: BedrockErrorContext): LlmError {
  if (isAbortError(err, ctx.signal)) return llmError('cancelled', 'Request cancelled.');
  const e = (err ?? {}) as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number; attempts?: number } };
  const name = e.name ?? '';
  const message = (e.message ?? String(err)).trim();
  const status = e.$metadata?.httpStatusCode;
  const profile = ctx.profile ? ` (profile ${ctx.profile})` : '';

  if ((name === 'ValidationException' || status === 400) && isContextOverflow(message)) {
    return llmError('context_window', `Bedrock: the request is larger than ${ctx.modelId}'s context window: ${message}`, status);
  }
  if (THROTTLED.has(name) || status === 429) {
    const tries = e.$metadata?.attempts ? ` after ${e.$metadata.attempts} attempts` : '';
    return llmError('rate_limit', `Bedrock is throttling requests (${name || 429})${tries}: ${message}. Wait and retry, or raise your Bedrock quota.`, status);
  }
  if (name === 'ExpiredTokenException' || name === 'ExpiredToken' || /token (included in the request )?is expired|session .*has expired/i.test(message)) {
    return llmError('auth', `AWS credentials${profile} have expired: refresh them (e.g. \`aws sso login\`), or use --profile / --provider to pick others.`, status);
  }
  if (BAD_CREDENTIALS.has(name)) {
    return llmError(
      'auth',
      `AWS rejected the credentials${profile} (${name}): ${message} Check AWS_ACCESS_KEY_ID / AWS_PROFILE, or use --provider to pick another provider.`,
      status,
    );
  }
  if (name === 'CredentialsProviderError' || name === 'TokenProviderError' || /could not load credentials/i.test(message)) {
    return llmError(
      'auth',
      `No AWS credentials found${profile}: set AWS_PROFILE (or --profile / awsProfile), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run \`aws sso login\`; --provider picks another provider.`,
    );
  }
  if (name === 'AccessDeniedException') {
    return llmError(
      'auth',
      `AWS denied access to Bedrock model ${ctx.modelId}${profile}: ${message} Enable model access in the Bedrock console, or pick another --model / --profile.`,
      status,
    );
  }
  if (status === 401 || status === 403) {
    return llmError('auth', `AWS refused the request${profile} (${name || status}): ${message} Check your AWS credentials, or use --provider to pick another provider.`, status);
  }
  if (/region is missing/i.test(message)) {
    return llmError('other', 'No AWS region set for Bedrock: set AWS_REGION, `region` in the config, or a region in your AWS profile.');
  }
  if (name === 'ResourceNotFoundException') {
    return llmError('other', `Bedrock model ${ctx.modelId} was not found: ${message} Check --model and the region.`, status);
  }
  if (status === undefined && (isNetworkFailure(err) || /^aborted$/.test(message))) {
    return llmError('network', `Connection to Bedrock failed: ${message || e.code}`);
  }
  const label = name && name !== 'Error' ? `${name}: ` : '';
  return llmError('other', `Bedrock request failed: ${label}${message}`, status);
}
