/**
 * How to use another workspace, said for where the app runs: the desktop app switches in its sidebar (no terminal);
 * the headless server's page cannot, since the workspace is the one the server was started with; a service's
 * workspace is its custodian's. Pure: unit-tested under Node.
 */
export type WorkspaceSwitch =
  { kind: 'desktop'; text: string } | { kind: 'headless'; text: string; command: string } | { kind: 'service'; text: string }

export function workspaceSwitch(transport: 'ipc' | 'http', deployment: 'workbench' | 'service' | undefined): WorkspaceSwitch {
  if (deployment === 'service')
    return { kind: 'service', text: 'Another workspace is another service: its custodian gives you its address and an account.' }
  if (transport === 'ipc') {
    return {
      kind: 'desktop',
      text: 'To use another workspace, choose “Open workspace…” (an existing file) or “New workspace…” in the sidebar, under the status; the window then starts over on it.'
    }
  }
  return {
    kind: 'headless',
    text: 'This page works on the workspace the server was started with. To use another one, stop the server and start it again with the other file:',
    command: 'npm run serve -- --db PATH'
  }
}
