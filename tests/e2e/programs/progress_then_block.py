"""Prints progress lines, then blocks forever (a hung rank). No rank variables set."""

import time

for step in range(1, 31):
    print(f"step {step} loss {1 / step:.3f}", flush=True)
    time.sleep(0.1)
print("waiting for a peer that never comes", flush=True)
time.sleep(3600)
