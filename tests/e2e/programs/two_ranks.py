"""A tiny launcher: two ranks (RANK set), each printing steps; exits like a shell would.

argv[1]: "propagate" (exit 128+N if a rank was killed by signal N) or "mask" (always exit 0).
"""

import os
import subprocess
import sys

RANK_CODE = """
import os, sys, time
rank = int(os.environ["RANK"])
print(f"rank {rank} pid {os.getpid()}", flush=True)
step = 0
while True:
    step += 1
    print(f"[rank{rank}]: step {step}", flush=True)
    time.sleep(0.2)
"""

mode = sys.argv[1] if len(sys.argv) > 1 else "propagate"
ranks = [
    subprocess.Popen(
        [sys.executable, "-c", RANK_CODE], env={**os.environ, "RANK": str(r), "LOCAL_RANK": str(r)}
    )
    for r in range(2)
]
worst = 0
while ranks:
    pid, status = os.wait()
    ranks = [p for p in ranks if p.pid != pid]
    code = 128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    worst = worst or code  # the first failure decides, as torchrun reports it
    for p in ranks:  # a failed rank takes the job down, as torchrun does
        p.terminate()
sys.exit(0 if mode == "mask" else worst)
