/**
 * Child process of the import crash test: imports a file into a workspace and reports each committed batch on stdout
 * ("batch <rows>"), so the parent can SIGKILL it at chosen points. Usage: crash-import-child.ts DB FILE NAME
 */
import { planImport, runImport } from '../../../src-main/services/datasets/import-dataset'
import { openStore } from '../../../src-main/services/store/store'

const [db, file, name] = process.argv.slice(2)
const store = openStore(db)
process.stdout.write('ready\n')
runImport(store.db, planImport(store.db, { path: file, name }), {
  afterBatch: (rows) => {
    process.stdout.write(`batch ${rows}\n`)
  }
}).then(
  () => {
    process.stdout.write('done\n')
    store.close()
  },
  (e) => {
    process.stderr.write(`${(e as Error).message}\n`)
    process.exitCode = 1
  }
)
