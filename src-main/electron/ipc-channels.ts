/** The only two IPC channels: contract calls (invoke) and contract events (send). */
export const IPC_CALL = 'quiet-alarm:call'
export const IPC_EVENT = 'quiet-alarm:event'
