/**
 * "Connect to ClickHouse" (WarehouseLinkPanel.tsx), beside "Connect to PostgreSQL": a local or Distributed table of a
 * ClickHouse server over HTTP(S), its password read from the server's environment (CLICKHOUSE_PASSWORD or a variable
 * ending in CLICKHOUSE_PASSWORD); the privacy unit is chosen among the table's columns, with where a Distributed
 * table's per-person stage runs.
 */
import { WarehouseLinkPanel, type WarehouseEngine } from './WarehouseLinkPanel'
import { clickhouseTables } from './warehouseLinkState'

const CLICKHOUSE: WarehouseEngine = {
  id: 'clickhouse',
  title: 'Connect to ClickHouse',
  blurb:
    "Link a table of your ClickHouse, local or Distributed over shards: it stays there, and releases read only aggregates of it (read-only, with a time limit). For the privacy officer: the server's password is used, so the link is signed with the officer's key.",
  url: {
    label: 'ClickHouse URL',
    placeholder: 'http://reader@localhost:8123',
    hint: "The HTTP(S) address and the user, without a password: the password is read from the app's environment (CLICKHOUSE_PASSWORD) and never stored."
  },
  passwordEnv: {
    label: 'ClickHouse password variable (optional, on the server)',
    placeholder: 'CLICKHOUSE_PASSWORD',
    hint: 'The name of an environment variable ending in CLICKHOUSE_PASSWORD, e.g. HR_CLICKHOUSE_PASSWORD.'
  },
  tableLabel: 'ClickHouse table',
  connected: (n) => `${n === 1 ? 'one table' : `${n} tables`} this user can see`,
  noTables: 'Connected, but this user sees no table.',
  act: 'Linking a ClickHouse table',
  list: async (client, req) => clickhouseTables((await client.call('datasets/clickhouse-tables', req)).tables),
  link: (client, req) => client.call('datasets/link-clickhouse', req)
}

export function ClickHousePanel(props: { onLinked: () => void }) {
  return <WarehouseLinkPanel engine={CLICKHOUSE} onLinked={props.onLinked} />
}
