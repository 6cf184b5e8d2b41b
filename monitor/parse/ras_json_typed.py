"""NCCL's RAS JSON layout as msgspec records, for ras_json's typed path (optional extra `fast`).

Field types are NCCL's own, checked strictly (a bool is not an int): a document that does not
fit is rejected whole and read by the standard library path instead. Values the report only
passes through or checks itself are left untyped (`Any`), as that path reads them.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Status(msgspec.Struct):
    init_state: int
    async_error: int
    finalize_called: bool
    destroy_flag: bool
    abort_flag: bool


class Counts(msgspec.Struct):
    Broadcast: int
    Reduce: int
    AllGather: int
    ReduceScatter: int
    AllReduce: int


class Rank(msgspec.Struct):
    rank: int
    host: str
    pid: int
    cuda_dev: int
    nvml_dev: int
    status: Status
    collective_counts: Counts


class Comm(msgspec.Struct):
    hash: Any = "0x0"
    secondary_hash: Any = ""
    size: int = 0
    ranks: list[Rank] | None = None
    missing_ranks: list[Any] | None = None


class Ras(msgspec.Struct):
    collection_time_sec: Any = None
    timeouts_count: Any = 0


class Document(msgspec.Struct):
    nccl_version: Any = None
    cuda_runtime_version: Any = None
    cuda_driver_version: Any = None
    timestamp: Any = None
    communicators: list[Comm] | None = None
    ras: Ras | None = None


DECODER = msgspec.json.Decoder(Document)
