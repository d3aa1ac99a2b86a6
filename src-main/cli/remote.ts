/**
 * The CLI as a client of a service (`--server URL --credential-file F [--ca-file CA]` instead of `--db`): every call is
 * a contract method over HTTPS as the credential's account (src-main/client/service-client.ts), and its failure is the
 * service's own sentence and code. The JSON printed is the same as on a workspace file.
 */
import { readFileSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import type { MethodName, RequestOf, ResponseOf } from '../contract'
import { ServiceClient, serviceOrigin } from '../client/service-client'
import { UserError } from '../services'
import { credentialFromFileText } from '../services/local'
import { type CliOptionSpec, type CliValues, UsageError, optString } from './command'

export const REMOTE_OPTIONS: Record<string, CliOptionSpec> = {
  server: { type: 'string', description: 'a Quiet Alarm service (https://HOST:PORT) to use instead of a workspace file (--db)' },
  'credential-file': { type: 'string', description: "with --server: a file holding your account's credential (as printed by account add)" },
  'ca-file': {
    type: 'string',
    description: "with --server: the certificate (PEM) of the authority that signed the service's certificate",
    defaultText: "the system's authorities"
  }
}

function readSmallFile(path: string, option: string, maxBytes: number): string {
  try {
    if (statSync(path).size > maxBytes) throw new UsageError(`--${option}: ${path} is larger than ${maxBytes} bytes`)
    return readFileSync(path, 'utf8')
  } catch (e) {
    if (e instanceof UsageError) throw e
    throw new UsageError(`--${option}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
  }
}

/** The service named by --server, or null when the command works on a workspace file (--db). */
export function remoteTarget(values: CliValues, cwd: string): ServiceClient | null {
  const server = optString(values, 'server')
  if (server === undefined) {
    for (const o of ['credential-file', 'ca-file']) if (values[o] !== undefined) throw new UsageError(`--${o} goes with --server URL`)
    return null
  }
  if (values.db !== undefined) throw new UsageError('give either --db (a workspace file) or --server (a service), not both')
  const origin = serviceOrigin(server)
  if (!origin.ok) throw new UsageError(`--server: ${origin.message}`)
  const credFile = optString(values, 'credential-file')
  if (credFile === undefined) throw new UsageError('--server needs --credential-file F (the file holding your account credential)')
  const credPath = resolve(cwd, credFile)
  const credential = credentialFromFileText(readSmallFile(credPath, 'credential-file', 64 * 1024))
  if (credential === null) throw new UsageError(`--credential-file: ${credPath} does not hold a Quiet Alarm credential (a line starting "qa1_")`)
  const caFile = optString(values, 'ca-file')
  const ca = caFile === undefined ? undefined : readSmallFile(resolve(cwd, caFile), 'ca-file', 1024 * 1024)
  return new ServiceClient({ url: origin.origin, credential, ca })
}

/** One contract call on the service; its failure is thrown as the service's sentence and code (exit 2, as on a file). */
export async function remoteCall<M extends MethodName>(client: ServiceClient, method: M, req: RequestOf<M>): Promise<ResponseOf<M>> {
  const out = await client.call(method, req)
  if (!out.ok) throw new UserError(out.error.message, out.error.code)
  return out.value as ResponseOf<M>
}
