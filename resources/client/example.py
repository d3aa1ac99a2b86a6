#!/usr/bin/env python3
"""An analyst's script against a Quiet Alarm service: sign in, preview a release, release it, read the ledger, and
(optionally) print the alarm fires the account is sent.

    python3 example.py https://host:8443 ana.cred ca.pem --query 1 [--beta 0.05 --alpha 2] [--watch SECONDS]

Prints one JSON line per step (the CI test reads them).
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quiet_alarm import Client, QuietAlarmError  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("url")
    p.add_argument("credential_file")
    p.add_argument("ca_file")
    p.add_argument("--query", type=int, required=True)
    p.add_argument("--beta", type=float, default=0.05)
    p.add_argument("--alpha", type=float, default=2)
    p.add_argument("--watch", type=float, default=0, help="seconds to wait for alarm fires after the release")
    a = p.parse_args()
    with open(a.credential_file, encoding="utf-8") as fh:
        qa = Client(a.url, fh.read(), ca_file=a.ca_file)
    step = lambda name, value: print(json.dumps({"step": name, "value": value}), flush=True)
    try:
        step("whoami", qa.call("accounts/whoami"))
        req = {"queryId": a.query, "params": {"kind": "threshold", "mechanism": "tslm", "beta": a.beta, "alpha": a.alpha}}
        preview = qa.call("releases/preview", req)
        step("preview", {"epsilonExact": preview.get("epsilonExact"), "allowed": preview.get("allowed")})
        release = qa.call("releases/run", req)
        step("release", {"releaseId": release.get("releaseId"), "epsilonExact": release.get("epsilonExact"), "status": release.get("status")})
        summary = qa.call("ledger/summary", {})
        step("ledger", [{"dataset": d["datasetName"], "spentPerUnitExact": d["spentPerUnitExact"]} for d in summary["datasets"]])
        if a.watch > 0:
            for name, payload in qa.events(timeout=a.watch):
                if name == "alarm:fired":
                    step("alarm-fired", payload)
    except QuietAlarmError as e:
        print(json.dumps({"error": {"code": e.code, "message": e.message}}), flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
