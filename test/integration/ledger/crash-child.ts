/**
 * Child process for the crash test: runs releases in a loop until it is killed. Each release waits a random moment
 * between its charge and its answer, so that kills land in every phase (admission, charge transaction, mechanism,
 * answer transaction).
 *   node --import tsx test/integration/ledger/crash-child.ts DB AIQ_QUERY SEARCH_QUERY THRESHOLD_QUERY
 */
import { openStore } from '../../../src-main/services/store/store'
import { runRelease } from '../../../src-main/services/releases/release-service'

const [db, aiq, search, threshold] = process.argv.slice(2)
const store = openStore(db)
let n = 0
process.stdout.write('ready\n')
for (;;) {
  const spin = Math.random() * 4 // test scaffolding only, not a release's randomness
  const kinds = [
    { queryId: Number(aiq), params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 0.001 } as const },
    { queryId: Number(search), params: { kind: 'anomaly-search' } as const },
    { queryId: Number(threshold), params: { kind: 'threshold', mechanism: n % 2 ? 'tslm' : 'ppwlm', beta: 0.1, alpha: 5000 } as const }
  ]
  const { queryId, params } = kinds[n % 3]
  runRelease(
    store.db,
    { queryId, params },
    {
      afterCharge: () => {
        const until = performance.now() + spin
        while (performance.now() < until) {
          /* busy: the process may be killed here */
        }
      }
    }
  )
  n++
}
