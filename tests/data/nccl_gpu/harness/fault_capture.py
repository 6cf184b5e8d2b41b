"""Ask every rank's debug worker server what it says, verbatim, once before the fault and at
given lags after the fault's mark; as debug_capture.py, with NCCL's own buffer asked as well.

usage: fault_capture.py MARKFILE OUTDIR NRANKS BASEPORT T_START BEFORE_S LAG_S [LAG_S ...]
Each reply is kept as OUTDIR/<moment>-rank<N>-<path>.txt after a
`# <METHOD> <path> status <code> at <epoch> took <s>` line.
"""

import http.client
import json
import os
import sys
import time

mark, out = sys.argv[1], sys.argv[2]
n, base, t_start, before = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
lags = [float(a) for a in sys.argv[7:]]
os.makedirs(out, exist_ok=True)
ASKED = [("GET", "/handler/"), ("POST", "/handler/ping"), ("POST", "/handler/dump_traceback"),
         ("POST", "/handler/fr_trace_json"), ("POST", "/handler/dump_nccl_trace_json")]


def ask(port, method, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    started = time.time()
    try:
        if method == "POST":
            conn.request(method, path, body=b"", headers={"Content-Length": "0"})
        else:
            conn.request(method, path)
        reply = conn.getresponse()
        return reply.status, reply.read(), time.time() - started
    except (OSError, http.client.HTTPException) as exc:
        return None, repr(exc).encode(), time.time() - started


def snap(label):
    for rank in range(n):
        for method, path in ASKED:
            status, body, took = ask(base + rank, method, path)
            name = path.strip("/").replace("/", "_") or "root"
            head = f"# {method} {path} status {status} at {time.time():.1f} took {took:.2f}\n"
            with open(os.path.join(out, f"{label}-rank{rank}-{name}.txt"), "wb") as f:
                f.write(head.encode() + body)


def fault_at():
    try:
        with open(mark) as f:
            return json.loads(f.readline())["t"]
    except (OSError, ValueError, KeyError):
        return None


while time.time() < t_start + before:
    time.sleep(0.5)
snap("before")
while fault_at() is None and time.time() < t_start + 120:
    time.sleep(0.5)
fault = fault_at() or time.time()
for lag in lags:
    while time.time() < fault + lag:
        time.sleep(0.5)
    snap(f"after{lag:g}")
print("debug capture done", flush=True)
