"""rankwatch: a per-node sidecar that names the rank holding up a distributed training job."""

__version__ = "0.1.0"
