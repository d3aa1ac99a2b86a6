"""A small client of the Quiet Alarm service's HTTP API (docs/api.md), Python standard library only.

    from quiet_alarm import Client
    qa = Client("https://quiet-alarm.example.org:8443", credential=open("ana.cred").read().strip(), ca_file="ca.pem")
    qa.call("accounts/whoami")
    for name, payload in qa.events(): ...

Every call sends the method's request in the envelope {"req": ...} with the account's credential as a Bearer token
over TLS (the certificate checked against ca_file, or the system's authorities), and the API version it was written
for. A failed call raises QuietAlarmError with the service's one sentence and code.
"""

import http.client
import json
import ssl
import urllib.parse

API_VERSION = "1"


class QuietAlarmError(Exception):
    def __init__(self, code, message):
        super().__init__("%s (%s)" % (message, code))
        self.code = code
        self.message = message


class Client:
    def __init__(self, url, credential, ca_file=None, timeout=60):
        u = urllib.parse.urlsplit(url)
        if u.scheme != "https":
            raise ValueError("a service is reached over TLS only: the address must start with https://")
        self.host = u.hostname
        self.port = u.port or 443
        self.credential = credential.strip()
        self.timeout = timeout
        self.context = ssl.create_default_context(cafile=ca_file)

    def _connection(self, timeout=None):
        return http.client.HTTPSConnection(self.host, self.port, context=self.context, timeout=timeout or self.timeout)

    def _headers(self):
        return {"Authorization": "Bearer " + self.credential, "X-Quiet-Alarm-Api": API_VERSION, "Content-Type": "application/json"}

    def call(self, method, req=None):
        """One contract method: its value, or QuietAlarmError."""
        body = json.dumps({} if req is None else {"req": req})
        conn = self._connection()
        try:
            conn.request("POST", "/api/call/" + urllib.parse.quote(method, safe="/"), body=body, headers=self._headers())
            res = conn.getresponse()
            version = res.getheader("X-Quiet-Alarm-Api")
            text = res.read().decode("utf-8")
        finally:
            conn.close()
        if version != API_VERSION:
            raise QuietAlarmError("bad-response", "the service speaks API version %s, this client version %s" % (version, API_VERSION))
        outcome = json.loads(text)
        if not outcome.get("ok"):
            err = outcome.get("error") or {}
            raise QuietAlarmError(err.get("code", "bad-response"), err.get("message", "the service refused the call"))
        return outcome.get("value")

    def events(self, timeout=None):
        """The account's event stream (Server-Sent Events): yields (name, payload) until the stream ends or times out."""
        conn = self._connection(timeout)
        headers = self._headers()
        headers["Accept"] = "text/event-stream"
        conn.request("GET", "/api/events", headers=headers)
        res = conn.getresponse()
        if res.status != 200:
            text = res.read().decode("utf-8")
            conn.close()
            err = (json.loads(text).get("error") or {}) if text.startswith("{") else {}
            raise QuietAlarmError(err.get("code", "bad-response"), err.get("message", "the event stream was refused (%d)" % res.status))
        try:
            data = []
            while True:
                try:
                    line = res.readline()
                except (TimeoutError, OSError):
                    return
                if not line:
                    return
                line = line.decode("utf-8").rstrip("\r\n")
                if line.startswith("data:"):
                    data.append(line[5:].lstrip())
                elif line == "" and data:
                    msg = json.loads("\n".join(data))
                    data = []
                    yield msg.get("name"), msg.get("payload")
        finally:
            conn.close()
