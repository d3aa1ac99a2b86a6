/**
 * "Connect to PostgreSQL" (WarehouseLinkPanel.tsx): a table or view of a PostgreSQL server, its password read from the
 * server's environment (PGPASSWORD or a variable ending in PGPASSWORD); the person column is typed (the relation's
 * columns are read when it is linked).
 */
import { WarehouseLinkPanel, type WarehouseEngine } from './WarehouseLinkPanel'
import { postgresTables } from './warehouseLinkState'

const POSTGRES: WarehouseEngine = {
  id: 'postgres',
  title: 'Connect to PostgreSQL',
  blurb:
    "Link a table or view of your PostgreSQL: it stays there, and releases read only aggregates of it (read-only, with a time limit). For the privacy officer: the server's password is used, so the link is signed with the officer's key.",
  url: {
    label: 'Connection URL',
    placeholder: 'postgresql://reader@localhost:5432/hr',
    hint: "Without a password: the password is read from the app's environment (PGPASSWORD) and never stored."
  },
  passwordEnv: {
    label: 'Password variable (optional, on the server)',
    placeholder: 'PGPASSWORD',
    hint: 'The name of an environment variable ending in PGPASSWORD, e.g. HR_PGPASSWORD.'
  },
  tableLabel: 'Table or view',
  connected: (n) => `${n === 1 ? 'one table or view' : `${n} tables and views`} this role may read`,
  noTables: 'Connected, but this role may read no table or view.',
  act: 'Linking a PostgreSQL table',
  list: async (client, req) => postgresTables((await client.call('datasets/postgres-relations', req)).relations),
  link: (client, req) => client.call('datasets/link-postgres', req)
}

export function PostgresPanel(props: { onLinked: () => void }) {
  return <WarehouseLinkPanel engine={POSTGRES} onLinked={props.onLinked} />
}
