/**
 * What the door counts for the custodian's monitoring, and its Prometheus text (exposition format 0.0.4).
 *
 * - Requests are counted by route and status, and timed (from the request's arrival to the answer's last byte handed to
 *   the socket) into one histogram per route. A route label is one of a fixed set (the door's routes, a contract method
 *   name, `call:unknown`, `page`), never a raw address: what a client types cannot grow the label set.
 * - Gauges (releases running and queued, denials recorded, backups, free disk) are read at the moment of the scrape by
 *   the caller's `gauges` and written after the counters.
 * - Nothing here holds a value of the data, a credential or an account's name.
 */

/** Upper bounds of the latency buckets, in seconds (+Inf is added). */
export const LATENCY_BUCKETS_S: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

interface Histogram {
  counts: number[]
  sum: number
  count: number
}

export interface Gauge {
  name: string
  help: string
  type: 'gauge' | 'counter'
  /** One sample per label set (no labels: one sample with `{}`). */
  samples: readonly { labels?: Readonly<Record<string, string>>; value: number }[]
}

/** A label value as the exposition format writes it (backslash, quote and newline escaped). */
function labelValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
}

function labels(l: Readonly<Record<string, string>> | undefined): string {
  const entries = Object.entries(l ?? {})
  return entries.length === 0 ? '' : `{${entries.map(([k, v]) => `${k}="${labelValue(v)}"`).join(',')}}`
}

function num(v: number): string {
  return Number.isFinite(v) ? String(v) : v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN'
}

export class DoorMetrics {
  private readonly requests = new Map<string, number>()
  private readonly latency = new Map<string, Histogram>()
  readonly startedMs = Date.now()

  /** One answered request: its route label, HTTP status, and seconds from arrival to the last byte handed over. */
  observe(route: string, status: number, seconds: number): void {
    const key = `${route}\u0000${status}`
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1)
    let h = this.latency.get(route)
    if (!h) {
      h = { counts: LATENCY_BUCKETS_S.map(() => 0), sum: 0, count: 0 }
      this.latency.set(route, h)
    }
    for (let i = 0; i < LATENCY_BUCKETS_S.length; i++) if (seconds <= LATENCY_BUCKETS_S[i]) h.counts[i]++
    h.sum += seconds
    h.count++
  }

  /** The Prometheus text: the door's counters and histograms, then `gauges` as given. */
  render(gauges: readonly Gauge[]): string {
    const out: string[] = []
    out.push('# HELP quiet_alarm_http_requests_total HTTP requests answered, by route and status.')
    out.push('# TYPE quiet_alarm_http_requests_total counter')
    for (const [key, n] of [...this.requests].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const [route, status] = key.split('\u0000')
      out.push(`quiet_alarm_http_requests_total${labels({ route, status })} ${n}`)
    }
    out.push('# HELP quiet_alarm_http_request_duration_seconds Time from a request to its answer handed to the socket, by route.')
    out.push('# TYPE quiet_alarm_http_request_duration_seconds histogram')
    for (const [route, h] of [...this.latency].sort(([a], [b]) => (a < b ? -1 : 1))) {
      LATENCY_BUCKETS_S.forEach((le, i) =>
        out.push(`quiet_alarm_http_request_duration_seconds_bucket${labels({ route, le: String(le) })} ${h.counts[i]}`)
      )
      out.push(`quiet_alarm_http_request_duration_seconds_bucket${labels({ route, le: '+Inf' })} ${h.count}`)
      out.push(`quiet_alarm_http_request_duration_seconds_sum${labels({ route })} ${num(h.sum)}`)
      out.push(`quiet_alarm_http_request_duration_seconds_count${labels({ route })} ${h.count}`)
    }
    out.push('# HELP quiet_alarm_uptime_seconds Seconds since the door started.')
    out.push('# TYPE quiet_alarm_uptime_seconds gauge')
    out.push(`quiet_alarm_uptime_seconds ${num((Date.now() - this.startedMs) / 1000)}`)
    for (const g of gauges) {
      out.push(`# HELP ${g.name} ${g.help}`)
      out.push(`# TYPE ${g.name} ${g.type}`)
      for (const s of g.samples) out.push(`${g.name}${labels(s.labels)} ${num(s.value)}`)
    }
    return `${out.join('\n')}\n`
  }
}

/** The door's API paths other than calls (a request's route label is one of these, a call's method, or a catch-all). */
const API_PATHS: ReadonlySet<string> = new Set(['/api/events', '/api/upload', '/api/session', '/api/health', '/api/ready', '/api/metrics'])

/**
 * A request's route label: `call:<method>` for a known contract method, `call:unknown` for any other call, an API
 * path the door has, `api:unknown`, or `page` (the UI's files and anything else).
 */
export function routeLabel(pathname: string, isMethod: (name: string) => boolean): string {
  if (pathname.startsWith('/api/call/')) {
    let m: string
    try {
      m = decodeURIComponent(pathname.slice('/api/call/'.length))
    } catch {
      return 'call:unknown'
    }
    return isMethod(m) ? `call:${m}` : 'call:unknown'
  }
  if (API_PATHS.has(pathname)) return pathname
  return pathname.startsWith('/api/') ? 'api:unknown' : 'page'
}
