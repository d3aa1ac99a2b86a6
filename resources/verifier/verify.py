#!/usr/bin/env python3
"""Verify a Quiet Alarm ledger without Quiet Alarm.

Written from docs/spec/v1/ledger.md alone (the rule names C1..Q3 below are the spec's), with the Python standard
library and the `cryptography` package (Ed25519). It shares no code with Quiet Alarm.

    python3 verify.py FILE [--receipt RECEIPT.json] [--report R.json --report-signature S.json] [--json]

FILE is an auditor export (`quiet-alarm ledger export --auditor F`), a test vector, or a bare record set
(`"kind": "quiet-alarm/ledger-records"`). Exit codes: 0 the ledger verifies, 3 it does not (the first problem is
printed), 4 the receipt itself is refused, 2 the input cannot be read.
"""

import base64
import hashlib
import json
import math
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

GENESIS = "0" * 64
NOTIONS = ["eps-dp", "predicate-wise-dp", "eps-k-sensitive", "anomaly-restricted-dp"]


class BadInput(Exception):
    pass


# ---------------------------------------------------------------------------------------------------------------
# RFC 8785 (JSON Canonicalization Scheme)


def _es_number(x):
    """A number as ECMAScript's Number::toString writes it (RFC 8785 section 3.2.2.3)."""
    if isinstance(x, bool):
        raise BadInput("a boolean is not a number")
    if isinstance(x, int):
        if abs(x) < 10**21:
            return str(x)
        x = float(x)
    if not math.isfinite(x):
        raise BadInput("canonical JSON has no NaN or Infinity")
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    # The shortest digits that round-trip (Python's repr gives them), as digits and a decimal exponent.
    r = repr(abs(x))
    if "e" in r:
        mant, exp = r.split("e")
        exp = int(exp)
    else:
        mant, exp = r, 0
    if "." in mant:
        ip, fp = mant.split(".")
    else:
        ip, fp = mant, ""
    digits = (ip + fp).lstrip("0")
    # value = 0.digits * 10^n  (ECMAScript's n)
    lead_zeros = len(ip + fp) - len((ip + fp).lstrip("0"))
    n = len(ip) + exp - lead_zeros
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    es = ("+" if e >= 0 else "-") + str(abs(e))
    if k == 1:
        return sign + digits + "e" + es
    return sign + digits[0] + "." + digits[1:] + "e" + es


def _es_string(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\f":
            out.append("\\f")
        elif ch == "\r":
            out.append("\\r")
        elif o < 0x20:
            out.append("\\u%04x" % o)
        elif 0xD800 <= o <= 0xDFFF:
            raise BadInput("canonical JSON has no lone surrogates")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def canonical(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return _es_number(v)
    if isinstance(v, str):
        return _es_string(v)
    if isinstance(v, list):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v.keys(), key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(_es_string(k) + ":" + canonical(v[k]) for k in keys) + "}"
    raise BadInput("canonical JSON cannot hold a %s" % type(v).__name__)


# ---------------------------------------------------------------------------------------------------------------
# Hashes, signed texts, keys (spec sections 2 to 5)


def sha256_hex(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def entry_hash(e):
    h = {k: e[k] for k in ("seq", "at", "kind", "datasetId", "datasetName", "notion", "amountNano", "cells", "releaseId", "actor", "description", "detail")}
    if e.get("signer") is not None:
        h["signer"] = e["signer"]
    return sha256_hex(e["prevHash"] + "\n" + canonical(h))


def audit_hash(prev, a):
    h = {k: a[k] for k in ("id", "at", "kind", "actor", "subject", "detail")}
    if a.get("signer") is not None:
        h["signer"] = a["signer"]
    return sha256_hex(prev + "\n" + canonical(h))


def entry_text(e):
    return "quiet-alarm/ledger-entry/v1\n%d\n%s\n%s" % (e["seq"], e["hash"], e["signer"])


def audit_text(a):
    return "quiet-alarm/audit-event/v1\n%d\n%s\n%s" % (a["id"], a["hash"], a["signer"])


def registration_text(o, version):
    who = {
        "keyId": o["keyId"],
        "name": o["name"],
        "createdAt": o["createdAt"],
        "signPublic": o["signPublic"],
        "sealPublic": o["sealPublic"],
        "addedBy": o["addedBy"],
    }
    if version == 1:
        return "quiet-alarm/officer/v1\n" + canonical(who)
    who["wrapped"] = o["wrappedSha256"]
    return "quiet-alarm/officer/v2\n" + canonical(who)


def checkpoint_text(c, prev_signature):
    prev = "none" if prev_signature is None else sha256_hex(prev_signature)
    return "quiet-alarm/checkpoint/v1\n%s\n%d\n%s\n%d\n%s\n%s\n%s" % (
        c["at"],
        c["ledgerSeq"],
        c["ledgerHash"],
        c["auditId"],
        c["auditHash"],
        c["signer"],
        prev,
    )


def receipt_text(r, key_id):
    heads = {k: r[k] for k in ("at", "ledgerSeq", "ledgerHash", "auditId", "auditHash")}
    heads["keyId"] = key_id
    return "quiet-alarm/ledger-receipt/v1\n" + canonical(heads)


def b64(s):
    return base64.b64decode(s, validate=False)


def key_id_of(sign_public, seal_public):
    return hashlib.sha256(b64(sign_public) + b64(seal_public)).hexdigest()[:32]


def ed25519_ok(sign_public, text, signature):
    if not isinstance(signature, str) or signature == "":
        return False
    try:
        raw = b64(sign_public)
        if len(raw) != 32:
            return False
        Ed25519PublicKey.from_public_bytes(raw).verify(b64(signature), text.encode("utf-8"))
        return True
    except (InvalidSignature, ValueError, TypeError):
        return False


def kdf_problem(k):
    if not isinstance(k, dict) or k.get("alg") != "scrypt":
        return "the key derivation is not scrypt"
    n, r, p = k.get("N"), k.get("r"), k.get("p")
    whole = lambda x: isinstance(x, int) and not isinstance(x, bool) and x > 0
    if not (whole(n) and whole(r) and whole(p)):
        return "the scrypt parameters are not whole numbers"
    if n & (n - 1) != 0 or n < 2**10 or n > 2**20:
        return "scrypt N is out of bounds"
    if r > 32 or p > 16:
        return "scrypt r or p is out of bounds"
    if n.bit_length() - 1 >= 16 * r:
        return "scrypt N is not below 2^(16 r)"
    if 128 * r * (n + 2 + p) > 256 * 1024 * 1024:
        return "scrypt needs more than 256 MiB"
    try:
        salt = len(b64(k.get("salt", "")))
    except (ValueError, TypeError):
        salt = 0
    if salt < 16 or salt > 64:
        return "the scrypt salt is not 16 to 64 bytes"
    return None


def parse_object(text):
    try:
        v = json.loads(text)
    except (ValueError, TypeError):
        return None
    return v if isinstance(v, dict) else None


# ---------------------------------------------------------------------------------------------------------------
# The trust rules (spec section 6)


class Findings:
    def __init__(self):
        self.problems = []

    def add(self, seq, rule, reason):
        self.problems.append({"seq": seq, "rule": rule, "reason": reason})


def verify_records(rec, receipt=None):
    f = Findings()
    P = f.add
    entries = sorted(rec["entries"], key=lambda e: e["seq"])
    events = sorted(rec["auditEvents"], key=lambda a: a["id"])
    officers = sorted(rec["officers"], key=lambda o: (o["createdAt"], o["keyId"]))
    checkpoints = sorted(rec["checkpoints"], key=lambda c: c["id"])

    # C1-C3: the ledger's chain
    by_seq = {}
    expected, last_hash, last_seq = 1, GENESIS, 0
    for e in entries:
        if e["seq"] != expected:
            P(expected, "C1", "entry %d is missing" % expected if e["seq"] > expected else "entry %d is out of order" % e["seq"])
        if e["prevHash"] != last_hash:
            P(e["seq"], "C2", "entry %d does not follow the entry before it" % e["seq"])
        if entry_hash(e) != e["hash"]:
            P(e["seq"], "C3", "entry %d does not match its hash" % e["seq"])
        by_seq[e["seq"]] = e
        last_hash, last_seq, expected = e["hash"], e["seq"], e["seq"] + 1
    end = last_seq + 1

    # C4: the head
    head = rec.get("head")
    if head is None:
        if entries:
            P(1, "C4", "the head record is missing")
    elif head["seq"] != last_seq or head["hash"] != last_hash:
        P(min(head["seq"], last_seq + 1), "C4", "the head names entry %d, the ledger ends at %d" % (head["seq"], last_seq))

    # C5: the audit chain
    by_id = {}
    prev = GENESIS
    for a in events:
        by_id[a["id"]] = a
        if a["hash"] is None:
            P(end, "C5", "audit event %d is not in the audit chain" % a["id"])
            continue
        if a["prevHash"] != prev:
            P(end, "C5", "audit event %d does not follow the event before it" % a["id"])
        if audit_hash(a["prevHash"] or "", a) != a["hash"]:
            P(end, "C5", "audit event %d does not match its hash" % a["id"])
        prev = a["hash"]

    registrations = {}
    for a in events:
        if a["kind"] == "officer/registered" and (a["subject"] or "").startswith("officer:"):
            registrations[a["subject"][len("officer:") :]] = a

    # R1-R6: the registry
    registry = {o["keyId"]: o for o in officers}

    def key_id_matches(o):
        try:
            return key_id_of(o["signPublic"], o["sealPublic"]) == o["keyId"]
        except (ValueError, TypeError):
            return False

    def declared_version(ev, signer):
        if ev is None or ev["hash"] is None or audit_hash(ev["prevHash"] or "", ev) != ev["hash"]:
            return None
        if not ev["signer"] or ev["signer"] != signer["keyId"] or not ev["signature"]:
            return None
        if not ed25519_ok(signer["signPublic"], audit_text(ev), ev["signature"]):
            return None
        d = parse_object(ev["detail"])
        if d is None:
            return None
        return 2 if d.get("registration") == 2 else 1

    def registration_signed(o, adder):
        if ed25519_ok(adder["signPublic"], registration_text(o, 2), o["signature"]):
            return True
        return declared_version(registrations.get(o["keyId"]), adder) == 1 and ed25519_ok(adder["signPublic"], registration_text(o, 1), o["signature"])

    self_registered = [o for o in officers if o["addedBy"] == o["keyId"]]
    trusted = {}
    if len(self_registered) == 1:
        grew = True
        while grew:
            grew = False
            for o in officers:
                if o["keyId"] in trusted or not key_id_matches(o):
                    continue
                adder = o if o["addedBy"] == o["keyId"] else trusted.get(o["addedBy"])
                if adder is not None and registration_signed(o, adder):
                    trusted[o["keyId"]] = o
                    grew = True
    for o in officers:
        if not key_id_matches(o):
            P(1, "R1", 'officer "%s" has a key id that does not match its keys' % o["name"])
        elif o["keyId"] not in trusted:
            if o["addedBy"] not in registry:
                P(1, "R3", 'officer "%s" was added by a key that is not a registered officer' % o["name"])
            elif len(self_registered) <= 1:
                P(1, "R3", 'the registration of officer "%s" does not carry a valid officer signature' % o["name"])
        kp = "they cannot be read" if o.get("kdf") is None else kdf_problem(o["kdf"])
        if kp is not None:
            P(1, "R5", 'the wrapped keys of officer "%s" are refused: %s' % (o["name"], kp))
    if len(self_registered) > 1:
        P(1, "R2", "more than one officer registered itself")

    signed_entries = [e for e in entries if e.get("signer")]
    signed_events = [a for a in events if a.get("signer")]

    # R7: traces of an officer without a trusted one
    trace = officers or checkpoints or signed_entries or signed_events or registrations
    if trace and not trusted:
        P(1, "R7", "an officer acted in this workspace but no registered officer verifies")

    # S1: the trust epoch
    epoch = rec.get("trustEpoch")
    if epoch is None:
        P(1, "S1", "the record of when officer signatures began is missing")
    pre = epoch["unsignedThroughSeq"] if epoch is not None else 0
    if checkpoints:
        pre = min(pre, min(c["ledgerSeq"] for c in checkpoints))
    if signed_entries:
        pre = min(pre, signed_entries[0]["seq"] - 1)

    def signed_by(key_id, text, signature):
        o = registry.get(key_id)
        return o is not None and bool(signature) and ed25519_ok(o["signPublic"], text, signature)

    # S2: signed entries
    signed_acts = 0
    for e in signed_entries:
        if e["signer"] not in registry:
            P(e["seq"], "S2", "entry %d is signed by a key that is not a registered officer" % e["seq"])
        elif not signed_by(e["signer"], entry_text(e), e.get("signature")):
            P(e["seq"], "S2", "entry %d does not carry a valid officer signature" % e["seq"])
        else:
            signed_acts += 1

    # S3, S6: officer acts unsigned after the epoch, or naming another dataset than the one holding the id now
    uids = {d["id"]: d["uid"] for d in rec.get("datasets", [])}
    for e in entries:
        if e["kind"] == "charge":
            continue
        if not e.get("signer") and e["seq"] > pre:
            P(e["seq"], "S3", "entry %d is an officer act (%s) without an officer's signature" % (e["seq"], e["kind"]))
        if e["datasetId"] in uids:
            d = parse_object(e["detail"]) or {}
            named = d.get("datasetUid") if isinstance(d.get("datasetUid"), str) else None
            if named != uids[e["datasetId"]]:
                P(e["seq"], "S6", "entry %d was recorded for another dataset than the one holding id %d now" % (e["seq"], e["datasetId"]))

    # S4: signed audit events
    for a in signed_events:
        if a["hash"] is not None and signed_by(a["signer"], audit_text(a), a.get("signature")):
            signed_acts += 1
        else:
            P(end, "S4", "audit event %d (%s) does not carry a valid officer signature" % (a["id"], a["kind"]))

    # S5: unsigned officer events after the first officer
    first_officer_at = officers[0]["createdAt"] if officers else None
    for a in events:
        if a.get("signer") or not a["kind"].startswith("officer/") or a["kind"] == "officer/declare-public":
            continue
        if first_officer_at is not None and a["at"] >= first_officer_at:
            P(end, "S5", "audit event %d (%s) is an officer act without an officer's signature" % (a["id"], a["kind"]))

    # R6: every officer recorded in the audit log
    for o in officers:
        if o["keyId"] not in registrations:
            P(1, "R6", 'officer "%s" is not recorded in the audit log' % o["name"])

    # K1-K3: checkpoints
    prev_signature = None
    covered_seq = covered_audit = 0
    last_checkpoint = None
    for c in checkpoints:
        text = checkpoint_text(c, prev_signature)
        prev_signature = c["signature"]
        if not signed_by(c["signer"], text, c["signature"]):
            P(max(1, c["ledgerSeq"]), "K1", "checkpoint %d does not carry a valid officer signature" % c["id"])
            continue
        covered_seq = max(covered_seq, c["ledgerSeq"])
        covered_audit = max(covered_audit, c["auditId"])
        if c["ledgerSeq"] > 0:
            e = by_seq.get(c["ledgerSeq"])
            if e is None or e["hash"] != c["ledgerHash"]:
                P(c["ledgerSeq"], "K2", "the ledger up to entry %d no longer matches checkpoint %d" % (c["ledgerSeq"], c["id"]))
        if c["auditId"] > 0:
            a = by_id.get(c["auditId"])
            if a is None or a["hash"] != c["auditHash"]:
                P(end, "K2", "the audit log up to event %d no longer matches checkpoint %d" % (c["auditId"], c["id"]))
        if last_checkpoint is None or (c["ledgerSeq"], c["auditId"]) >= (last_checkpoint["ledgerSeq"], last_checkpoint["auditId"]):
            last_checkpoint = c
    for e in signed_entries:
        if e["seq"] > covered_seq:
            P(e["seq"], "K3", "entry %d is an officer act that no checkpoint covers" % e["seq"])
    for a in signed_events:
        if a["id"] > covered_audit:
            P(end, "K3", "audit event %d is an officer act that no checkpoint covers" % a["id"])

    # Q1-Q3: a receipt
    refused = None
    if receipt is not None:
        o = receipt.get("officer") or {}
        try:
            ok = key_id_of(o["signPublic"], o["sealPublic"]) == o["keyId"] and ed25519_ok(o["signPublic"], receipt_text(receipt, o["keyId"]), receipt["signature"])
        except (KeyError, ValueError, TypeError, BadInput):
            ok = False
        if not ok:
            refused = "the receipt does not carry a valid officer signature"
        else:
            if not any(t["keyId"] == o["keyId"] and t["signPublic"] == o["signPublic"] for t in trusted.values()):
                P(1, "Q2", "the officer who signed the receipt is not a trusted officer of this workspace")
            if receipt["ledgerSeq"] > 0:
                e = by_seq.get(receipt["ledgerSeq"])
                if e is None:
                    P(min(receipt["ledgerSeq"], last_seq + 1), "Q3", "entry %d, covered by the receipt, is missing" % receipt["ledgerSeq"])
                elif e["hash"] != receipt["ledgerHash"]:
                    P(receipt["ledgerSeq"], "Q3", "the ledger up to entry %d was rewritten after the receipt" % receipt["ledgerSeq"])
            if receipt["auditId"] > 0:
                a = by_id.get(receipt["auditId"])
                h = None if a is None else a["hash"]
                if h is None or h != receipt["auditHash"]:
                    P(end, "Q3", "the audit log up to event %d is not the one the receipt covers" % receipt["auditId"])

    problems = sorted(f.problems, key=lambda p: p["seq"])
    result = {
        "ok": refused is None and not problems,
        "verdict": "refused" if refused is not None else ("ok" if not problems else "failed"),
        "firstBrokenSeq": None if refused is not None or not problems else problems[0]["seq"],
        "entries": len(entries),
        "headHash": last_hash,
        "signedActs": signed_acts,
        "trustedOfficers": sorted(trusted.keys()),
        "lastCheckpoint": None if last_checkpoint is None else {"ledgerSeq": last_checkpoint["ledgerSeq"], "auditId": last_checkpoint["auditId"]},
        "notCheckpointed": {
            "entries": max(0, last_seq - (last_checkpoint["ledgerSeq"] if last_checkpoint else 0)),
            "auditEvents": sum(1 for a in events if a["id"] > (last_checkpoint["auditId"] if last_checkpoint else 0)),
        },
        "problems": problems,
        "spend": spend(rec),
    }
    if refused is not None:
        result["refused"] = refused
    return result


# ---------------------------------------------------------------------------------------------------------------
# Spend (spec section 7)


def account_spend(charges):
    """The most any record has lost: the best choice of at most one cell per column set, pairwise compatible."""
    own = {}
    for cell, nano in charges:
        own[cell] = own.get(cell, 0) + nano
    groups = {}
    for key, nano in own.items():
        conj = json.loads(key)
        cols = tuple(sorted(conj.keys()))
        groups.setdefault(cols, []).append(({c: canonical(conj[c]) for c in conj}, nano))
    group_list = list(groups.values())
    best = 0

    def dfs(i, assign, acc):
        nonlocal best
        best = max(best, acc)
        if i == len(group_list):
            return
        dfs(i + 1, assign, acc)
        for conj, nano in group_list[i]:
            if all(assign.get(c, v) == v for c, v in conj.items()):
                merged = dict(assign)
                merged.update(conj)
                dfs(i + 1, merged, acc + nano)

    dfs(0, {}, 0)
    return best


def spend(rec):
    out = []
    charges = [e for e in rec["entries"] if e["kind"] == "charge"]
    ids = sorted({d["id"] for d in rec.get("datasets", [])} | {e["datasetId"] for e in rec["entries"]})
    for i in ids:
        d = {"id": i}
        by_notion = {}
        for n in NOTIONS:
            cs = [(c, e["amountNano"]) for e in charges if e["datasetId"] == d["id"] and e["notion"] == n for c in set(json.loads(e["cells"]))]
            by_notion[n] = account_spend(cs)
        out.append({"datasetId": d["id"], "spentPerUnitNano": sum(by_notion.values()), "byNotion": by_notion})
    return out


# ---------------------------------------------------------------------------------------------------------------
# The auditor export (spec section 8): its signature, its checkpoint, its spend and each charge from its mechanism


def nano_up(decimal_text):
    """A decimal's nano-epsilon, rounded up, exactly (no binary floating point)."""
    from decimal import Decimal, ROUND_CEILING

    return int((Decimal(decimal_text) * 1000000000).to_integral_value(rounding=ROUND_CEILING))


def es_decimal(x):
    """The decimal text ECMAScript writes for a number (what the ledger converted)."""
    return _es_number(x)


def recompute_charge(m):
    """(expected nano, slack in nano) for a charge from its mechanism record; None for a kind this verifier does not know."""
    p = m["params"]
    if m["kind"] == "threshold":
        s, alpha, beta = p["sensitivity"], p["alpha"], p["beta"]
        per = math.log(1 / (2 * beta)) / alpha if m["mechanism"] == "tslm" else math.log(p["steps"] / (2 * beta)) / alpha
        # The ledger rounds the per-predicate epsilon up to whole nano-epsilon, then multiplies by the groups one unit can add to.
        g = p["unitGroups"]
        return (math.ceil(s * per * 1e9) * g, 2 * g)
    if m["kind"] == "anomaly-identification":
        return (nano_up(es_decimal(p["epsilon"])) * p["records"] * p.get("personSteps", 1), 0)
    if m["kind"] == "anomaly-search":
        return (nano_up(es_decimal(p["epsilonPerQuery"])) * p["maxQueries"], 0)
    return None


def verify_export(doc, result):
    """Adds the export's own problems (rules X1 to X4, M1) to a result of verify_records."""
    rec = doc["records"]
    problems = []
    sig = doc.get("signature") or {}
    body = {k: v for k, v in doc.items() if k != "signature"}
    data_sha = sha256_hex(canonical(body))
    officer = next((o for o in rec["officers"] if o["keyId"] == sig.get("keyId")), None)
    if data_sha != sig.get("dataSha256"):
        problems.append({"rule": "X1", "reason": "the export's content does not hash to the SHA-256 its officer signed"})
    if officer is None or sig.get("keyId") not in result["trustedOfficers"]:
        problems.append({"rule": "X1", "reason": "the export is not signed by a trusted officer of the ledger"})
    elif not ed25519_ok(officer["signPublic"], "quiet-alarm/auditor-export/v1\n%s\n%s" % (data_sha, sig["keyId"]), sig.get("signature")):
        problems.append({"rule": "X1", "reason": "the export's signature does not verify"})
    cp = doc.get("checkpoint") or {}
    match = [c for c in rec["checkpoints"] if all(c.get(k) == cp.get(k) for k in ("id", "at", "ledgerSeq", "ledgerHash", "auditId", "auditHash", "signer"))]
    last_seq = max([e["seq"] for e in rec["entries"]] or [0])
    last_audit = max([a["id"] for a in rec["auditEvents"]] or [0])
    if not match or cp.get("signer") != sig.get("keyId"):
        problems.append({"rule": "X2", "reason": "the export's checkpoint is not one of its checkpoints, signed by its officer"})
    elif cp["ledgerSeq"] != last_seq or cp["auditId"] != last_audit:
        problems.append({"rule": "X2", "reason": "the export's checkpoint does not cover every record in it"})
    mine = {s["datasetId"]: s for s in result["spend"]}
    for s in doc.get("spend", []):
        got = mine.get(s["datasetId"])
        if got is None or got["spentPerUnitNano"] != s["spentPerUnitNano"] or got["byNotion"] != s["byNotion"]:
            problems.append({"rule": "X3", "reason": "the spend of dataset %d is not what its charges add up to" % s["datasetId"]})
    charges = {e["seq"]: e for e in rec["entries"] if e["kind"] == "charge"}
    seen = set()
    unchecked = []
    for m in doc.get("mechanisms", []):
        e = charges.get(m["seq"])
        seen.add(m["seq"])
        d = parse_object(e["detail"]) if e is not None else None
        if e is None or d is None or m["amountNano"] != e["amountNano"] or m["params"] != d.get("params", {}) or m["kind"] != d.get("kind"):
            problems.append({"rule": "X4", "reason": "the mechanism record of entry %d is not what the entry holds" % m["seq"]})
            continue
        try:
            r = recompute_charge(m)
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            r = ("bad", 0)
        if r is None:
            unchecked.append(m["seq"])
        elif r[0] == "bad" or not (r[0] - r[1] <= m["amountNano"] <= r[0] + r[1]):
            problems.append({"rule": "M1", "reason": "the charge of entry %d (%d nano) is not what its mechanism costs (%s)" % (m["seq"], m["amountNano"], r[0])})
    for seq in charges:
        if seq not in seen:
            problems.append({"rule": "X4", "reason": "charge %d has no mechanism record" % seq})
    result["export"] = {"ok": not problems, "dataSha256": data_sha, "problems": problems, "chargesNotRecomputed": unchecked}
    if problems:
        result["ok"] = False
        if result["verdict"] == "ok":
            result["verdict"] = "failed"


def verify_report(rec, result, report_bytes, sig):
    """A signed report (rules P1 to P3) against the records of an auditor export made after it."""
    problems = []
    report = json.loads(report_bytes.decode("utf-8"))
    data_sha = sha256_hex(canonical(report))
    if data_sha != sig.get("dataSha256") or hashlib.sha256(report_bytes).hexdigest() != data_sha:
        problems.append({"rule": "P1", "reason": "the report's data does not hash to the SHA-256 its officer signed"})
    cp = sig.get("checkpoint") or {}
    text = "quiet-alarm/report/v1\n%s\n%s\n%s\n%s\n%s\n%s\n%s" % (
        sig.get("dataSha256"), cp.get("id"), cp.get("ledgerSeq"), cp.get("ledgerHash"), cp.get("auditId"), cp.get("auditHash"), sig.get("keyId"))
    officer = next((o for o in rec["officers"] if o["keyId"] == sig.get("keyId")), None)
    if officer is None or sig.get("keyId") not in result["trustedOfficers"] or not ed25519_ok(officer["signPublic"], text, sig.get("signature")):
        problems.append({"rule": "P2", "reason": "the report does not carry a valid signature of a trusted officer"})
    match = [c for c in rec["checkpoints"] if c["signer"] == sig.get("keyId") and all(c.get(k) == cp.get(k) for k in ("id", "at", "ledgerSeq", "ledgerHash", "auditId", "auditHash"))]
    head = report.get("ledgerHead") or {}
    entry = next((e for e in rec["entries"] if e["seq"] == head.get("seq")), None)
    if not match:
        problems.append({"rule": "P3", "reason": "the report's checkpoint is not one the ledger holds"})
    elif head.get("seq", 0) > 0 and (entry is None or entry["hash"] != head.get("hash") or head["seq"] > cp["ledgerSeq"]):
        problems.append({"rule": "P3", "reason": "the report's ledger head is not in the chain its checkpoint covers"})
    result["report"] = {"ok": not problems, "dataSha256": data_sha, "problems": problems}
    if problems:
        result["ok"] = False
        if result["verdict"] == "ok":
            result["verdict"] = "failed"


# ---------------------------------------------------------------------------------------------------------------


def records_of(doc):
    if not isinstance(doc, dict):
        raise BadInput("the file is not a JSON object")
    if doc.get("kind") == "quiet-alarm/ledger-records":
        return doc
    for key in ("records",):
        inner = doc.get(key)
        if isinstance(inner, dict) and inner.get("kind") == "quiet-alarm/ledger-records":
            return inner
    raise BadInput("the file holds no ledger records (an auditor export, a test vector or a record set)")


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    as_json = "--json" in argv
    values = {}
    for opt in ("--receipt", "--report", "--report-signature"):
        if opt in argv:
            i = argv.index(opt)
            if i + 1 >= len(argv):
                print("%s needs a file" % opt, file=sys.stderr)
                return 2
            values[opt] = argv[i + 1]
            args = [a for a in args if a != values[opt]]
    receipt_path = values.get("--receipt")
    if ("--report" in values) != ("--report-signature" in values):
        print("--report and --report-signature go together", file=sys.stderr)
        return 2
    if len(args) != 1:
        print("usage: verify.py FILE [--receipt RECEIPT.json] [--report R.json --report-signature S.json] [--json]", file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8") as fh:
            doc = json.load(fh)
        rec = records_of(doc)
        receipt = None
        if receipt_path is not None:
            with open(receipt_path, encoding="utf-8") as fh:
                receipt = json.load(fh)
        elif isinstance(doc.get("receipt"), dict):
            receipt = doc["receipt"]
        result = verify_records(rec, receipt)
        if doc.get("kind") == "quiet-alarm/auditor-export":
            verify_export(doc, result)
        if "--report" in values:
            with open(values["--report"], "rb") as fh:
                report_bytes = fh.read()
            with open(values["--report-signature"], encoding="utf-8") as fh:
                sig = json.load(fh)
            verify_report(rec, result, report_bytes, sig)
    except (OSError, ValueError, KeyError, TypeError, BadInput) as e:
        print("Cannot verify %s: %s" % (args[0], e), file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(result, sort_keys=True))
    elif result["verdict"] == "refused":
        print("Receipt refused: %s; nothing was checked against it." % result["refused"])
    elif result["ok"]:
        print("Ledger verified: %d entries, head %s, %d officer acts signed." % (result["entries"], result["headHash"][:16], result["signedActs"]))
        if "export" in result:
            print("Export verified: signed by its officer with a checkpoint covering every record; spend and every charge recomputed.")
        if "report" in result:
            print("Report verified: its data hashes to what a trusted officer signed, with a checkpoint the ledger holds.")
    elif not result["problems"] and (result.get("export") or {}).get("problems"):
        p = result["export"]["problems"][0]
        print("Export verification FAILED (%s): %s." % (p["rule"], p["reason"]))
    elif not result["problems"] and (result.get("report") or {}).get("problems"):
        p = result["report"]["problems"][0]
        print("Report verification FAILED (%s): %s." % (p["rule"], p["reason"]))
    else:
        p = result["problems"][0]
        print("Ledger verification FAILED at %d (%s): %s." % (p["seq"], p["rule"], p["reason"]))
    return {"ok": 0, "failed": 3, "refused": 4}[result["verdict"]]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
