"""A CPU emulation of an NCCL training job, seen from the outside, for end-to-end tests.

Real ranks (torch CPU, gloo) train under torchrun or a launcher that does not tear down; they
publish their real collective counts, and one RAS endpoint on loopback reports them in NCCL's
text and JSON formats. In `nccl` mode the hosts wait in a `synchronize` like a CUDA host. Faults
and healthy-lifecycle phases are chosen by `RW_EMU_*` knobs. `harness.EmulatedJob` runs a
scenario under the real `rankwatch run` and hands back the alert records and the fault time.
"""
