import { type CliCommand } from './command'
import { UserError } from '../services'

/** A command named in the CLI contract whose implementation has not landed yet: it says so and exits 2. */
export function notYetImplemented(name: string, summary: string, issue: number): CliCommand {
  return {
    name,
    summary: `${summary} [not available yet]`,
    usage: `${name} ...`,
    options: {},
    async run() {
      throw new UserError(`"${name}" is not available in this build yet (tracked in issue ${issue})`, 'not-implemented')
    }
  }
}
