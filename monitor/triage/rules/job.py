"""Rules that read the job's own faults: its exceptions, its writes, its data loading.
"""

from __future__ import annotations

import re

from monitor.model import Category
from monitor.parse.log_events import EventKind, Level
from monitor.parse.log_patterns import DATA_PHASE_WORDS
from monitor.triage.evidence import Located, compress_ranks, whereabouts, who
from monitor.triage.lexicon import (
    ANSWERED_OR_OFFLINE,
    CORRUPT_DATA,
    SHORT_WRITE,
    UNREACHED_ENDPOINT,
    Family,
    Reading,
    logged_below_error,
    places,
    platform_verdict,
    read_line,
    stops_from_outside,
    words_family,
)
from monitor.triage.reader import FileScan, TailLine
from monitor.triage.rules.base import (
    _COLLATERAL,
    _CRASHED,
    _LEGACY_LOCAL,
    _SPAWN_EXIT,
    Context,
    Finding,
    _called,
    _failed_worker,
    _failed_worker_rank,
    _message,
    _named,
    _ray_rank,
    _ray_task,
    _ray_task_name,
    _spawn_reports,
    launcher_ended_ranks,
    logged_as_handled,
    nfs_answered_again,
    raised_as,
    ray_worker_rank,
    reconnected_after,
    record_lines,
    says_nccl_unexplained,
    stepped_past,
    swallowed,
    table_entries,
    went_on_past,
    written_before,
)
from monitor.triage.rules.unexplained import (
    TIME_RAN_OUT,
    failing_readings,
    retried_connects_above,
)
from monitor.triage.topology import task_ranks

# Exceptions that are a file system's refusal whatever their message. A missing file
# (FileNotFoundError) is not among them: a path the job got wrong, or two ranks racing on one
# file, is the job's bug; the storage did what it was asked.
# (not FileExistsError: a directory two processes both created, `os.makedirs` without
# exist_ok, is the job's own race, not the disk's)
_STORAGE_EXCEPTIONS = frozenset({
    # Ray's object store could not spill to its node's full disk
    "OutOfDiskError"})
# OSError is raised for anything the OS refused (a lock held, a directory not empty, too many
# open files, a model name the hub does not know): the disk's story only where its errno is
# one a disk gives (EIO, EFAULT, EEXIST, EFBIG, ENOSPC, EROFS, ESTALE, EREMOTEIO, EDQUOT)
_WRONG_PATH = re.compile(r"\bIs a directory\b|\bNot a directory\b|\berrno (?:20|21)\b")
_GENERIC_OS_ERRORS = frozenset({"OSError", "IOError", "EnvironmentError"})
# Rust's io::Error as its Debug prints it under a binding (safetensors' `Error while
# serializing: IoError(Os { code: 30, kind: ReadOnlyFilesystem, message: "Read-only file
# system" })`): the OS's errno, a disk's where it is one
_RUST_OS_DISK = re.compile(r"\bOs \{ code: (?:5|14|27|28|30|116|122), kind: \w+")
_DISK_ERRNO = re.compile(r"\[Errno (?:5|14|17|27|28|30|116|121|122)\]|"
                         r"Input/output error|Stale file handle|No space left on device|"
                         r"Read-only file system|Disk quota exceeded|File too large|"
                         # a mount that refuses POSIX locks (NFS without lockd: HDF5's `unable
                         # to lock file, errno = 37, error message = 'No locks available'`)
                         r"\[Errno 37\]|No locks available|"
                         # a FUSE, Lustre or GPFS mount that went away under a path, a
                         # parallel file system's client that lost its servers (ENODEV,
                         # ECOMM, ENOTCONN, ESHUTDOWN on a file, not a socket)
                         r"\[Errno (?:19|70|10[78])\] [^:]*: '|"
                         # datasets' check before it writes, pandas' missing directory
                         r"\bNot enough disk space\b|"
                         r"\bCannot save file into a non-existent directory\b")


# A server's own answer that it failed, or that the service behind its gateway did (an
# object store's and the model hub's are read as storage before this)
_SERVER_FAILED = re.compile(r"\bHTTP Error 5\d\d\b|\b5\d\d Server Error\b|"
                            r"\bServer error '5\d\d\b|\b50[234] (?:Bad Gateway|Service "
                            r"Unavailable|Gateway Time-?out)\b")
_URL_HOST = re.compile(r"\bhttps?://([\w.-]+)")
_SEE_ABOVE = re.compile(r"\b[Ss]ee (?:the )?(?:root cause|errors?|logs?|traceback)s? above\b|"
                        # vLLM's executor when a worker died before it was ready (`WorkerProc
                        # initialization failed due to an exception in a background process.
                        # See stack trace for root cause.`)
                        r"\bexception in a background process\. See stack trace for root cause\b|"
                        # JAX's and TensorFlow's coordination service relaying another task's
                        # failure (`UNAVAILABLE: The following tasks are unhealthy (stopped
                        # sending heartbeats)`): the listed task's story
                        r"\bThe following tasks are unhealthy\b|"
                        r"\bheartbeat timeout\. This indicates that the remote task\b|"
                        r"\bcrashed for some reason\b|"
                        # Ray Train's `TrainingFailedError: The Ray Train run failed. Please
                        # inspect the previous error messages for a cause.`
                        r"\binspect the previous error messages for a cause\b|"
                        # a retry wrapper that gave up, naming no error of its own (OpenRLHF's
                        # `Request error for 5 times, returning None. Please check the API
                        # server.`): each try's error was logged above it
                        r"\b[Ee]rror for \d+ times\b")
_WORKER_DIED = re.compile(r"\b(?:abruptly died|terminated abruptly|died unexpectedly)\b")
# an exception whose message is a platform's or wrapper's report that the process was killed
# (SageMaker's `ExecuteUserScriptError: ExitCode 137`, Databricks' `Driver down cause: driver
# state change (exit code: 137)`): a kill whose cause the message does not give
_KILLED_EXIT = re.compile(r"(?i:\bexit ?code\W{1,3}137\b|\bexit(?:ed)? with (?:code|status) "
                          r"(?:137|-9)\b|\bexit status (?:137|-9)\b|\bstatus of 9\b)|"
                          r"\bsignal 9\b|\bSIGKILL\b")


def _said(ctx: Context, item: Located) -> tuple[str, str]:
    """An exception's type and message, and the lines of its record that the file's tail
    holds (a chained cause's words: `outgoing traffic has been disabled`)."""
    record = [t.text for t in ctx.scans[item.file_index].tail
              if item.event.line <= t.line <= min(item.event.end_line, item.event.line + 60)]
    # (a message that is only a heading is read with its lines: gRPC's `<_InactiveRpcError of
    # RPC that terminated with:` then `status = StatusCode.UNAVAILABLE`, `details = …`)
    return (f"{item.event.fields.get('exc_type')}: {_full_message(ctx, item)}",
            "\n".join([item.event.text, *record]))


def _kept_lines(scan: FileScan) -> list[TailLine]:
    """What the reader kept of a file, in order: its last lines, and its failing lines from
    before them (an exception above the last lines is known by those)."""
    return sorted({t.line: t for t in (*scan.loose, *scan.tail)}.values(), key=lambda t: t.line)


def _worker_traceback(ctx: Context, item: Located) -> str:
    """A DataLoader worker's original traceback as the file's tail holds it: the lines after
    the report, up to and with the worker's own exception line (where the report is above the
    file's last lines, its failing lines are what is kept of it)."""
    lines: list[str] = []
    for t in _kept_lines(ctx.scans[item.file_index]):
        if not item.event.line <= t.line <= item.event.line + 60:
            continue
        lines.append(t.text)
        if t.line > item.event.line and _ANOTHER_EXCEPTION.match(t.text):
            break
    return "\n".join(lines)


def _message_below(ctx: Context, item: Located) -> str:
    """The lines right under an exception line whose message it left empty (up to a few,
    blank lines passed over, as the file's tail holds them): the same writer's, up to a line
    logged as a warning or at INFO, or another exception's."""
    end = item.event.end_line
    said: list[str] = []
    for t in ctx.scans[item.file_index].tail:
        if not end < t.line <= end + 4:
            continue
        if ((t.rank is not None and item.rank is not None and t.rank != item.rank)
                or logged_below_error(t.text) or _ANOTHER_EXCEPTION.match(t.text)
                or _STAMPED.search(t.text)):
            break
        said.append(t.text)
    return " ".join(said)


# A message that is only a heading for the lines under it: TensorFlow's `UnknownError: Graph
# execution error:` (then, after a blank line, what failed), MXNet's and TVM's
# `MXNetError: Traceback (most recent call last):` (then the native frames and the error)
_HEADING_ONLY = re.compile(r"^.{0,60}:\s*$")
_NATIVE_FRAME = re.compile(r"^\s+(?:File \"|\[bt\]|\d+: |at )")


# `OOM when allocating tensor … on /job:worker/replica:0/task:1/device:GPU:0`
_TF_DEVICE = re.compile(r"\bon (/job:\w+/replica:\d+/task:\d+)/device:(\w+:\d+)")
_TF_OP_DEFINED = re.compile(r"\s*Detected at node .{1,200} defined at \(most recent call last\):")


_RANK_PREFIX = re.compile(r"^\[rank\d+\]:")


def _message_under_heading(ctx: Context, item: Located) -> str:
    """What an exception whose message is only a heading says under it: its next few lines
    that are no frame (up to another record: a stamped line, a warning, another rank's), and,
    for a native traceback's heading, the error line that ends it."""
    end = item.event.end_line
    said: list[str] = []
    op_stack = False
    # (never a line past a gap the kept lines do not account for)
    last = end
    for t in _kept_lines(ctx.scans[item.file_index]):
        if not end < t.line <= end + 40:
            continue
        if t.line - last > 3:
            break  # lines between that neither kept: another record may lie there
        last = t.line
        if not t.text.strip() or _NATIVE_FRAME.match(t.text):
            continue
        if ((t.rank is not None and item.rank is not None and t.rank != item.rank)
                or logged_below_error(t.text) or _STAMPED.search(t.text)):
            break
        # TensorFlow's graph error: `Detected at node 'X' defined at …`, the op's Python
        # stack, then `Node: 'X'` and the message itself
        if _TF_OP_DEFINED.match(t.text):
            op_stack = True
            continue
        if op_stack:
            op_stack = not t.text.lstrip().startswith("Node: ")
            continue
        # (a kept failing line is as written, its rank's prefix with it)
        said.append(_RANK_PREFIX.sub("", t.text).strip())
        if _ANOTHER_EXCEPTION.match(t.text) or len(said) >= 3:
            break
    return " ".join(said)


def _full_message(ctx: Context, item: Located) -> str:
    """An exception's message, with the lines under it where it is only their heading."""
    message = str(item.event.fields.get("exc_message", ""))
    if (_HEADING_ONLY.match(message) and not _NAME_ONLY.match(message)) or (
            # (or one cut inside a parenthesis it opened: HDF5's `Can't read data (file read
            # failed: time = …` goes on with `, errno = 5, error message = 'Input/output error'`)
            message.count("(") > message.count(")")) or _PY4J_CALL.match(message):
        return f"{message} {_message_under_heading(ctx, item)}"
    return message


# Py4J's heading for the Java exception on the line under it (PySpark's `Py4JJavaError: An
# error occurred while calling o312.fit.` or, for a static call, `… calling
# z:org.apache.spark.api.python.PythonRDD.collectAndServe.`, then `: org.apache.spark.…`)
_PY4J_CALL = re.compile(r"^An error occurred while calling [\w.$:]+?\.?\s*$")


# A line a logger stamped (a time, glog's or absl's severity): another record, not the rest
# of an exception's message (TensorFlow's `… 15:08:13.136034: W …bfc_allocator.cc:290]
# Allocator (GPU_0_bfc) ran out of memory …`, which it calls "not a failure")
_STAMPED = re.compile(r"^\W*(?:\d{4}-\d\d-\d\d[ T]|[IWEF]\d{4} )\d\d:\d\d:\d\d|"
                      r"^[IWEF] \S+\.\w+:\d+\] ")  # (its severity and source, the time read off)
# A message that is only another exception's name (`RuntimeError: ResourceExhaustedError:`)
_NAME_ONLY = re.compile(r"^\s*(?:\w+\.)*\w*(?:Error|Exception):?\s*$")
# A line that opens another exception's record (its type, then a colon)
_ANOTHER_EXCEPTION = re.compile(r"^\s*(?:\w+\.)*[A-Z]\w*(?:Error|Exception|Exit)\b:")


def _unreached(text: str, record: str = "") -> str | None:
    """The endpoint an exception (its type and message, `text`) says its client could not
    reach ("" when it names none), or None when it says no such thing, or its record (a chained
    cause's lines) says the endpoint answered (an HTTP status) or that no connection was tried
    (the hub's offline mode)."""
    if (UNREACHED_ENDPOINT.search(text) is None
            or ANSWERED_OR_OFFLINE.search(f"{text}\n{record}") is not None):
        return None
    # (or, where its own words name none, the HTTP pool of a cause chained in its record:
    # the hub's `OSError: We couldn't connect to …` over urllib3's `HTTPSConnectionPool(…)`)
    # (a client's target with its port says most; a bare host, least)
    target = _client_target(text)
    where = (_http_endpoint(text) or (target if ":" in target else "")
             or ", ".join(places(text)) or _http_endpoint(record) or target)
    if "Cannot connect to proxy" in text or "ProxyError" in text:
        return f"the proxy on the way to {where}" if where else "the proxy"
    return f"the link to {where}" if where else ""


def chained_endpoint(ctx: Context, first: Located) -> str:
    """The endpoint the exceptions chained with `first` name, where its own words name none
    (`ConnectionRefusedError: [Errno 111] …`, then urllib3's and requests'
    `HTTPConnectionPool(host='10.0.12.9', port=8000)`, redis-py's `Error -2 connecting to
    HOST:PORT.`): the link to it, or ""."""
    # (a chained exception's line may be read as its own connection error event; Python
    # prints a chain cause first, so the causes of the last exception raised are above it)
    chained = [i for i in ctx.of(EventKind.PYTHON_TRACEBACK, EventKind.CONNECTION_ERROR)
               if i.file_index == first.file_index and i is not first
               and (0 < i.event.line - first.event.end_line <= 40
                    or 0 < first.event.line - i.event.end_line <= 40
                    # (or the traceback whose record holds it: its last exception the cause's)
                    or i.event.line <= first.event.line <= i.event.end_line)
               and (i.event.rank is None or i.event.rank == first.event.rank)]
    return next((f"the link to {endpoint}" for item in chained
                 if (endpoint := _http_endpoint(text := (
                     _said(ctx, item)[0] if item.kind is EventKind.PYTHON_TRACEBACK
                     else item.event.text)) or _client_target(text))), "")


# what a client names as the target it could not reach: botocore's `Could not connect to
# the endpoint URL: "https://sts.…/"` and `Connect timeout on endpoint URL: "…"`, the hub's
# `couldn't connect to 'https://huggingface.co'`, urllib3's `Connection to HOST timed out`,
# redis-py's `Error 111 connecting to HOST:PORT.`, Go's `Post "URL": dial tcp: …`
_CLIENT_TARGET = re.compile(r"\bendpoint URL: \"https?://(?P<url>[\w.-]+(?::\d+)?)|"
                            r"(?i:\bcouldn't (?:connect to|reach) )'https?://(?P<hub>[\w.-]+(?::\d+)?)|"
                            r"\bConnection to (?P<host>[\w.-]+\.[\w-]+) timed out\b|"
                            r"\bError -?\d+ connecting to (?P<redis>[\w.-]+:\d+)\.|"
                            # aiohttp's connector (`Cannot connect to host localhost:8000 ssl:…`)
                            r"\bCannot connect to host (?P<aiohttp>[\w.-]+:\d+) ssl:|"
                            # Go's net/http: the request's method and URL before its error
                            # (`Post "http://wandb.svc:8080/graphql": dial tcp: lookup …`)
                            r"\b(?:Get|Post|Put|Head|Patch|Delete) \"https?://(?P<go>[\w.-]+(?::\d+)?)[/\"]")


_URL_HOST_PORT = re.compile(r"\bhttps?://([\w.-]+(?::\d+)?)")


def _one_url_in(code: str) -> str:
    """The one host (and port) the URLs of a traceback's code lines name
    (`urlopen(f"http://10.0.7.21:18080/shard/{step}")`); "" for none or several."""
    hosts = set(_URL_HOST_PORT.findall(code))
    return next(iter(hosts)) if len(hosts) == 1 else ""


def _own_code_lines(ctx: Context, item: Located) -> str:
    """The code lines of a traceback's frames (indented under their `File "…"` line), its own
    process's only (another rank's line printed in the middle is not its code)."""
    return "\n".join(t.text for t in record_lines(ctx, item)
                     if t.rank == item.event.rank and t.text.startswith("    ")
                     and not t.text.lstrip().startswith("File "))


def _client_target(text: str) -> str:
    """The host (and port) a client's own words name as what it could not reach, or ""."""
    m = _CLIENT_TARGET.search(text)
    return next((g for g in m.groups() if g), "") if m is not None else ""


def _http_endpoint(text: str) -> str:
    """`host:port` of an HTTP client's pool (`HTTPConnectionPool(host='10.0.12.9',
    port=8000)`), or ""."""
    m = _HTTP_ENDPOINT.search(text)
    return f"{m['host']}:{m['port']}" if m is not None else ""


def _most_said(reading: Reading) -> tuple[str, ...]:
    """The place a line names that says most (`executor 3 on dn-7.corp` over `executor 3`)."""
    return (max(reading.where, key=len).rstrip("."),) if reading.where else ()


# an exception that relays a worker's loss: Spark's aborted job, a thread the loss interrupted,
# a distributed trainer's word that its training failed (XGBoost on Spark)
_RELAYS_A_LOST_WORKER = re.compile(r"\bJob aborted due to stage failure\b|ExecutorLost|"
                                   r"InterruptedException|\btraining failed\b|\bjob was aborted\b")


# a task scheduler's word that a task of the job failed, the task's own failure told elsewhere
_RELAYED_TASK_FAILURE = re.compile(r"\bJob aborted due to stage failure\b|\bExecutorLostFailure\b")


def _node_lost_above(ctx: Context, first: Located,
                     unreached: str) -> tuple[TailLine, Reading, str] | None:
    """A line of the same file above `first` that the lexicon reads as a node lost or
    stopped from outside, naming a host the unreached endpoint names."""
    for line, reading in failing_readings(ctx, first.file_index):
        if line.line >= first.event.line or reading.family is not Family.INFRASTRUCTURE:
            continue
        for where in reading.where:
            host = where.rsplit(" on ", 1)[-1].rstrip(".")
            if len(host) > 3 and (f"to {host}:" in unreached or f"to {host} " in unreached):
                return line, reading, host
    return None


def _unreached_finding(first: Located, unreached: str, evidence: str) -> Finding:
    """The network, for an endpoint a client could not reach: no rank is blamed (the raiser is
    one end of the link), the link or proxy is named where the lines say which."""
    return Finding(
        Category.NETWORK, (), (unreached,) if unreached else (), (evidence,), first,
        ("Check the route from that node to the endpoint named (DNS, proxy, firewall), and "
         "whether the service was up.",),
    )


# An object store's refusal or failure of a call, a read as much as a write: botocore's
# ClientError on an S3 operation, the stores' own error codes, a store URL with its failure
_STORE_REFUSED = re.compile(r"\bwhen calling the (?:(?:Get|Head|Put|Copy|Delete)Object\w*|"
                            r"ListObjects\w*|HeadBucket|UploadPart\w*|"
                            r"(?:Create|Complete|Abort)MultipartUpload) operation\b|"
                            r"\bPlease reduce your request rate\b|"
                            r"\b(?:ErrorCode:)?(?:ContainerNotFound|BlobNotFound|NoSuchKey|"
                            r"NoSuchBucket)\b|\bThe specified (?:blob|container) does not exist\b|"
                            # (not a caller its credentials do not let in: `…, 401`, `…, 403`)
                            r"\bgcsfs\.retry\.HttpError\b(?![^\n]*, 40[13]\b)|"
                            # google-cloud-storage's API errors on its endpoint (`TooManyRequests:
                            # 429 POST https://storage.googleapis.com/upload/storage/v1/b/…`)
                            r"(?:^|\s)[45]\d\d (?:GET|POST|PUT|PATCH|DELETE) "
                            r"https://storage\.googleapis\.com/|"
                            r"\b[Ff]ailed to (?:download|upload) (?:s3|gs|az|abfss?)://|"
                            r"\b(?:s3|gs|az|abfss?)://\S+.{0,80}?(?:\bnot found\b|[Pp]ermission|"
                            r"[Aa]ccess ?[Dd]enied|HTTP (?:response )?(?:code )?(?:429|5\d\d)\b)|"
                            # a store's or the model hub's own failure or throttling, as the
                            # client words its HTTP answer (huggingface_hub's `HfHubHTTPError:
                            # 504 Server Error: Gateway Time-out for url: https://huggingface.co/…`,
                            # Azure's `ErrorCode:ServerBusy`); its 4xx but 429 are the caller's
                            r"\bHfHubHTTPError: (?:429|5\d\d)\b|"
                            r"\b(?:429|5\d\d) (?:Client|Server) Error: .{0,80}? for url: https://"
                            r"(?:huggingface\.co|hf\.co|[\w.-]*\.(?:amazonaws\.com|googleapis\.com|"
                            r"blob\.core\.windows\.net))/|"
                            r"\bErrorCode:(?:ServerBusy|InternalError|OperationTimedOut)\b|"
                            r"\bThe server is busy\.")
# An input file that is not what its reader expects, raised by its reader (safetensors' header,
# HDF5's addresses, Arrow's and Parquet's footers, a tar member's header)
_CORRUPT_RAISED = re.compile(r"\bError while deserializing header\b|"
                             r"\bUnable to (?:synchronously )?open file \((?:bad|file signature)\b|"
                             r"\bExpected to read \d+ metadata bytes, but only read \d+\b|"
                             r"\bParquet magic bytes not found in footer\b|"
                             # Arrow's IPC reader and tarfile on a file cut short
                             r"\bExpected to be able to read \d+ bytes for message body, got \d+|"
                             r"\bReadError: \(?['\"]?unexpected end of data\b|"
                             r"\bReadError: \(?'?invalid header\b|"
                             # tarfile's other words for a member header that is not one
                             # (InvalidHeaderError's, re-raised as ReadError at the first member)
                             r"\bReadError: \(?['\"]?(?:bad checksum|truncated header|empty file|"
                             r"missing or bad subsequent header)\b|"
                             r"\bParquet file size is 0 bytes\b|"
                             # HF datasets' check of the examples it prepared against those the
                             # dataset's card records (`NonMatchingSplitsSizesError: [{'expected':
                             # SplitInfo(…, num_examples=7339240, …), 'recorded': …}]`): the data
                             # files it read are not the ones described (cut or changed)
                             r"\bNonMatchingSplitsSizesError\b")

# numpy's readers on a file shorter than its header or index says, by the frame that raised:
# np.load's `read_array` (`array.shape = shape`, then `ValueError: cannot reshape array of size
# 6029312 into shape (3,1024,1024,4)`), and the token-file readers over np.frombuffer (Megatron's
# and fairseq's indexed_dataset: `ValueError: buffer is smaller than requested size`)
_ARRAY_FILE_CUT = re.compile(
    r"\bin read_array\s*\n(?:.*\n){0,2}?.*?\bValueError: cannot reshape array of size \d+ into shape\b|"
    r"\bindexed_dataset\.py\", line \d+, in \w+\s*\n(?:.*\n){0,2}?.*?\bValueError: buffer is "
    r"smaller than requested size\b")


# an exception that says the wait it was in ran out, in its own words
_WAITED_OUT = re.compile(r"\btook too long\b|\bbailing out\b|\b[Tt]imed out\b|"
                         r"\b[Tt]imeout (?:after|while|waiting)\b")


# Hugging Face datasets wraps the reader's error (`raise DatasetGenerationError(…) from e`);
# a parser's error under it is the input files'
_PARSER_ERRORS = frozenset({"ArrowInvalid", "JSONDecodeError", "UnicodeDecodeError", "ParserError"})


# a parser's error raised (its exception line, after any prefix a rank's lines carry)
_PARSER_RAISED = re.compile(r"(?:^|\s)(?:\w+\.)*(?:" + "|".join(sorted(_PARSER_ERRORS)) + r"): ",
                            re.MULTILINE)


def _unparsable_input(exc: str, item: Located) -> bool:
    chain = item.event.fields.get("chain")
    names = [str(c).rsplit(".", 1)[-1] for c in chain] if isinstance(chain, tuple) else []
    # (HF datasets' own word that a data file's columns differ from the others':
    # `datasets.table.CastError: Couldn't cast …`, then `DatasetGenerationCastError: … All the
    # data files must have the same columns`)
    return exc == "datasets.table.CastError" or "DatasetGenerationCastError" in (
        exc.rsplit(".", 1)[-1], *names) or (
        exc.rsplit(".", 1)[-1] == "DatasetGenerationError"
        and any(n in _PARSER_ERRORS for n in names))


def _parsing_a_dataset(ctx: Context, exc: str, item: Located) -> bool:
    """A parser's error (Arrow's `JSON parse error … in row 3571`, `JSONDecodeError`) that
    HF datasets turned into its `DatasetGenerationError` on the same rank just below (a paste
    that kept that exception without its own traceback's header): a data file it could not
    parse."""
    if exc.rsplit(".", 1)[-1] not in _PARSER_ERRORS:
        return False
    return any(e.file_index == item.file_index and e.rank == item.rank
               and 0 < e.event.line - item.event.end_line <= _CHAINED_WITHIN
               and str(e.event.fields.get("exc_type", "")).endswith("DatasetGenerationError")
               for e in ctx.of(EventKind.PYTHON_TRACEBACK))


def _storage_refused(exc: str, message: str, chain: object = ()) -> bool:
    """Whether an exception is the file system's refusal (a disk, a quota, a mount) or an
    object store's refusal or failure of a call."""
    name = exc.rsplit(".", 1)[-1]
    # (a PermissionError on a file, `[Errno 13] Permission denied: '/ckpt/…'`; Paddle raises one
    # for a tensor an in-place operation modified: `(PermissionDenied) Tensor '' used in …`)
    return name in _STORAGE_EXCEPTIONS or (
        # a link the job's write could not make over an existing one (`[Errno 17] File
        # exists: 'ckpt-1000' -> 'latest'`): a checkpoint's write that failed
        name == "FileExistsError" and " -> " in message) or (
        name == "PermissionError" and "[Errno 13]" in message) or (
        name in _GENERIC_OS_ERRORS and _DISK_ERRNO.search(message) is not None) or (
        _RUST_OS_DISK.search(message) is not None) or (
        # (its type is part of its words: `gcsfs.retry.HttpError: …, 503`)
        _STORE_REFUSED.search(f"{exc}: {message}") is not None) or (
        # an object store's refusal that s3fs translated into an OSError (`PermissionError:
        # Access Denied`, `FileNotFoundError: The specified key does not exist.`, raised from
        # botocore's ClientError or its NoSuchKey)
        name in ("PermissionError", "FileNotFoundError", "OSError") and any(
            str(c).rsplit(".", 1)[-1] in ("ClientError", "NoSuchKey", "NoSuchBucket")
            for c in (chain if isinstance(chain, tuple) else ())))


# pickle's reader at the end of what it was given (`EOFError: Ran out of input`): a file
# cut short or empty, where no multiprocessing pipe is in its frames (spawn's child reading
# its parent's pickled state says the same when the parent went away)
# (or `UnpicklingError: pickle data was truncated`, the same cut inside a record)
_PICKLE_CUT = re.compile(r"(?:^|\s)(?:EOFError: Ran out of input|"
                         r"(?:_pickle\.)?UnpicklingError: pickle data was truncated)\b",
                         re.MULTILINE)


def _pickle_cut(text: str, frames: str) -> bool:
    return _PICKLE_CUT.search(text) is not None and "multiprocessing" not in frames


# exceptions a worker raises when the other end of its connection or pipe went away
_RELAYED_BY_WORKER = re.compile(r"^(?:ConnectionResetError|ConnectionAbortedError|BrokenPipeError|"
                                r"EOFError)$")


def _pipe_closed(item: Located) -> bool:
    """A bare EOFError from multiprocessing's connection or manager: the process at the other
    end of the pipe went away (a queue's feeder, a manager), not this one's bug."""
    return (str(item.event.fields.get("exc_type", "")).rsplit(".", 1)[-1] == "EOFError"
            and not str(item.event.fields.get("exc_message", "")).strip()
            and "multiprocessing/" in str(item.event.fields.get("frames", "")))


def _worker(item: Located) -> str:
    """The dead DataLoader worker, by its rank and pid as far as the line shows them."""
    pid = item.event.fields.get("pid") or item.event.fields.get("pids")
    worker = f"DataLoader worker pid {pid}" if pid else "a DataLoader worker"
    return f"{worker} of {who(item)}" if item.rank is not None else worker


def _stop_shown(ctx: Context) -> bool:
    """The logs show a stop from outside the job: a scheduler's cancel, a launcher sent a
    signal, a pod evicted."""
    return bool(ctx.of(EventKind.SLURM_CANCEL, EventKind.AGENT_DEATH_SIGNAL, EventKind.POD_EVICTED))


def _launcher_closed_before(ctx: Context, item: Located) -> bool:
    """The launcher sent its workers their closing signal before this line (torchrun's
    `Sending process N closing signal SIGTERM` after another rank failed): what died of
    SIGTERM after it met the launcher's teardown."""
    return any((s.file_index == item.file_index and s.event.line < item.event.line)
               or (s.time is not None and item.time is not None and s.time <= item.time)
               for s in ctx.of(EventKind.AGENT_SIGTERM))


def dataloader(ctx: Context) -> Finding | None:
    # (a worker SIGTERM ended, `is killed by signal: Terminated.`, where the logs show a stop
    # from outside, met that stop: a scheduler's cancel, a launcher told to stop; no death of
    # its own)
    died = [e for e in ctx.of(EventKind.DATALOADER_WORKER_DIED)
            if e.event.fields.get("cause") != "terminated"
            or not (_stop_shown(ctx) or _launcher_closed_before(ctx, e))]
    timeouts = ctx.of(EventKind.DATALOADER_TIMEOUT)
    if died:
        # A worker that "exited unexpectedly" says nothing of why; a line that names the cause
        # (a bus error, shared memory) is the better witness of the same death.
        named = [e for e in died if e.event.fields.get("cause") not in ("exited", None)]
        first = named[0] if named else died[0]
        cause = first.event.fields.get("cause")
        # (the banner `Unexpected bus error encountered in worker` names no pid: the same
        # death's report in its file, a few lines on, does)
        witness = first if first.event.fields.get("pid") or first.event.fields.get("pids") \
            else next((e for e in died if e.file_index == first.file_index
                       and 0 < e.event.line - first.event.line <= 30
                       and (e.event.fields.get("pid") or e.event.fields.get("pids"))), first)
        ranks = ctx.global_ranks([first]) or ctx.global_ranks([witness])
        culprits = (_worker(witness),)
        if cause == "bus_error" or first.event.fields.get("shm"):
            return Finding(
                Category.INFRASTRUCTURE, ranks, culprits,
                (f"{who(first)}: a DataLoader worker hit a bus error: shared memory (/dev/shm) "
                 f"is too small ({first.where})",), first,
                ("Give the container more shared memory (`--shm-size`, `--ipc=host`, or a "
                 "bigger /dev/shm), or lower num_workers.",),
            )
        if cause == "exception":
            exc = str(first.event.fields.get("exc", ""))
            # the worker's original exception (its last lines) may say the input is corrupt
            original = _worker_traceback(ctx, first)
            corrupt = (CORRUPT_DATA.search(first.event.text) or CORRUPT_DATA.search(original)
                       or _CORRUPT_RAISED.search(original) or _ARRAY_FILE_CUT.search(original)
                       # (a parser's error in the worker: a record the dataset could not parse)
                       or _PARSER_RAISED.search(original)
                       # (pickle's reader at the end of a file cut short: its match is quoted)
                       or (_pickle_cut(original, original) and _PICKLE_CUT.search(original)))
            unreached = _unreached(original.rsplit("\n", 1)[-1], original)
            if unreached is not None and not corrupt:
                # the worker read from an endpoint it could not reach (an object store)
                return _unreached_finding(
                    first, unreached, f"{who(first)}: {exc} in a DataLoader worker "
                    f"({first.where}): the endpoint it read from could not be reached")
            if _RELAYED_BY_WORKER.search(exc.rsplit(".", 1)[-1]) and not corrupt:
                # its other end went away (a connection reset, a pipe or a manager's EOF):
                # that end's story, which the worker's lines do not tell
                return Finding(
                    Category.UNDETERMINED, (), (),
                    (f"{who(first)}: {exc} in a DataLoader worker ({first.where}): the other "
                     "end of its connection or pipe went away, and what ended it is not "
                     "shown",), first,
                    ("Find what the worker was reading from (a server, a manager process, a "
                     "socket) and why it closed.",),
                )
            category = (Category.DATA if corrupt else
                        Category.STORAGE_IO if _storage_refused(exc, f"{first.event.text}\n"
                                                                     f"{original}")
                        # the host's memory ran out under the worker (`MemoryError`, numpy's
                        # `Unable to allocate 37.3 GiB for an array`)
                        else Category.OOM if words_family(f"{exc}: {original}") is Family.OOM
                        else Category.SOFTWARE)
            return Finding(
                category, ranks, culprits,
                (f"{who(first)}: {exc} in a DataLoader worker ({first.where})"
                 + (f"; the input it read is corrupt: '{corrupt.group(0)}'" if corrupt else ""),),
                first,
                ("Fix the sample or the data path the worker failed on (the 'Original "
                 "Traceback' shows the frame).",),
            )
        if cause == "killed":
            return Finding(
                Category.UNDETERMINED, ranks, culprits,
                (f"{_worker(first)} was killed by SIGKILL ({first.where}); that is usually "
                 "the host OOM killer, but no kernel or cgroup line here says so",), first,
                ("Check `dmesg -T | grep -i 'killed process'` on that host; if it was the OOM "
                 "killer, lower num_workers/prefetch_factor or raise the memory limit.",),
            )
        return Finding(
            Category.UNDETERMINED, ranks, culprits,
            (f"{who(first)}: a DataLoader worker died ({cause}) ({first.where}); nothing here "
             "shows why",), first,
            ("Rerun with num_workers=0 to see the worker's own error.",),
        )
    if timeouts:
        first = timeouts[0]
        return Finding(
            Category.DATALOADER_STALL, ctx.global_ranks([first]),
            (who(first),) if first.rank is not None else (),
            (f"{who(first)}: DataLoader timed out after "
             f"{first.event.fields.get('timeout_seconds')} s ({first.where})",), first,
            ("Find the slow sample or storage behind the stalled worker (py-spy dump of the "
             "worker).",),
        )
    return None


def data_phase(ctx: Context) -> Finding | None:
    """A process that did not time out was still preparing data for about the timeout."""
    timeouts = ctx.of(EventKind.WATCHDOG_TIMEOUT)
    if not timeouts:
        return None
    timed_out = ctx.timed_out_ranks
    longest = max((t.event.int_field("timeout_ms") or 0) for t in timeouts) / 1000.0
    for item in ctx.of(EventKind.PROGRESS):
        desc = str(item.event.fields.get("desc", ""))
        if not any(word in desc for word in DATA_PHASE_WORDS):
            continue
        labelled = item.rank is not None and item.rank_origin != "pg"
        if labelled and item.rank in timed_out:
            continue
        elapsed = elapsed_seconds(str(item.event.fields.get("elapsed", "")))
        if longest and elapsed is not None and elapsed < 0.5 * longest:
            continue
        ranks = ctx.global_ranks([item]) if labelled else ()
        culprits = ((f"rank {ranks[0]}",) if ranks else
                    (f"the process printing {desc!r} (its rank is not shown in the log)",))
        first = timeouts[0].event.fields
        evidence = [
            f"{who(item) if labelled else 'an unlabelled process'} was still in {desc!r} "
            f"({item.event.fields.get('step')}/{item.event.fields.get('total')}, "
            f"{item.event.fields.get('elapsed')} elapsed) when the collective timed out after "
            f"{longest:.0f} s ({item.where})",
            f"the timed-out collective (#{first.get('seq')} {first.get('op')} "
            f"NumelIn={first.get('numel_in')}) waited for it ({timeouts[0].where})",
        ]
        in_data = [t for t in ctx.of(EventKind.PYTHON_TRACEBACK)
                   if t.event.fields.get("in_data_code")]
        if in_data:
            evidence.append(f"a traceback in data-loading code follows ({in_data[0].where})")
        return Finding(
            Category.DATA, ranks, culprits, tuple(evidence), item,
            ("Do the data preparation before init_process_group, on every rank, or cache it; "
             "or raise the process-group timeout above the preparation time.",),
        )
    return None


def elapsed_seconds(text: str) -> float | None:
    """tqdm's `29:56` or `2:22:47` → seconds."""
    parts = text.split(":")
    if not text or not all(p.isdigit() for p in parts):
        return None
    total = 0.0
    for part in parts:
        total = total * 60 + int(part)
    return total


# An exception whose message starts with the rank that raised it (Megatron's NaN checks).
_SELF_NAMED = re.compile(r"\[?Rank (\d+)\]?: |\[Rank:(\d+)\] |"
                         # Lightning's report of the rank whose own exception it caught
                         # (`DeadlockDetectedException: DeadLock detected from rank: 1`)
                         r"DeadLock detected from rank: (\d+)")


def _collective_timed_out(item: Located) -> bool:
    """An exception a collective call raised because it waited too long (gloo's and old
    NCCL's `work.wait()`: `RuntimeError: Operation timed out!`): the symptom of a peer that did
    not arrive, not this process's bug. A connection that timed out is the network's."""
    message = str(item.event.fields.get("exc_message", ""))
    return (item.event.fields.get("in_collective") is True and "timed out" in message.lower()
            and "onnect" not in message)


# torch's re-raise of a DataLoader worker's exception in the main process, and the worker's
# own exception line (its type, then its message) under `Original Traceback`
_CAUGHT_IN_WORKER = re.compile(r"Caught (\w+) in DataLoader worker process \d+\b")
_WORKER_RAISED = re.compile(r"((?:\w+\.)*\w*(?:Error|Exception|Exit|Invalid|Interrupt)\w*):\s?(.*)")
# torch could not write a tensor's shared-memory file (an mmap that failed is memory, not
# /dev/shm filling)
_TORCH_SHM_FILE = re.compile(r"unable to write to file </torch_\d+_")


# An accelerator runtime's own result in an exception the job's code raised (XLA's
# `RESOURCE_EXHAUSTED: Error allocating device buffer` on a TPU's HBM too)
_ACCELERATOR_OOM = re.compile(r"PT_DEVMEM Allocation failed|\b(?:ZE|UR)_RESULT_ERROR_OUT_OF_\w*MEMORY|"
                              # (torch_xla's `Resource exhausted: From /job:tpu_worker/…:
                              # Attempting to reserve 3.95G at the bottom of memory`)
                              r"(?:RESOURCE_EXHAUSTED|Resource exhausted): .{0,80}(?:[Aa]llocat|"
                              r"[Oo]ut of memory|[Aa]ttempting to reserve|[Rr]an out of memory)|"
                              # TensorFlow's allocator, in the message of its ResourceExhaustedError
                              r"\bOOM when allocating tensor\b")


_ACCELERATOR_ERROR = re.compile(r"\b(?:ZE|UR)_RESULT_ERROR_\w+|"
                                # the TPU runtime's halted device, raised as an exception
                                # (JAX's XlaRuntimeError, torch_xla's StatusOr)
                                r"Accelerator device halted\b|"
                                # Habana's runtime could not take or use its device
                                # (`synStatus=26 [Generic failure] Device acquire failed.`)
                                r"\bsynStatus=(?!0\b)\d+ \[[^\]]*\] Device acquire failed\b|"
                                # cuDNN's failure inside a call (not a bad argument of the job's)
                                r"\bCUDNN_STATUS_INTERNAL_ERROR\b|"
                                # Habana's runtime ended by its device's fatal error
                                r"\bSynapse is being terminated due to fatality\b|"
                                # Ascend's runtime: a device task failed under the stream,
                                # a core's fault, a device that stopped answering
                                r"\bACL stream synchronize failed\b|"
                                r"\b(?:vector|AI|ai) core execution is abnormal\b|"
                                r"\bDevice\[\d+\] lost heartbeat\b|"
                                # the TPU held by another process (libtpu's lock), as CUDA's
                                # `busy or unavailable` device is
                                r"\bThe TPU is already in use by process with pid \d+")


_OWN_ADVICE = {
    Category.OOM: "The device ran out of memory on the rank that raised it: lower the "
                  "micro-batch or shard the model further.",
    Category.GPU_CUDA: "The accelerator's runtime failed on the rank that raised it: check that "
                       "device (its driver's log, a rerun on another one).",
    Category.INFRASTRUCTURE: "The node's /dev/shm filled: give the container more shared "
                             "memory (--shm-size) or fewer DataLoader workers.",
}


def _spawned_worker(ctx: Context, item: Located) -> str | None:
    """The mp.spawn worker that raised `item`: the spawn report nearest above it, when the
    file's reports name one worker. Its index is a local one (a global rank only on one
    node): named, never taken for a rank."""
    reports = _spawn_reports(ctx, item.file_index)
    above = [index for line, index in reports if line < item.event.line]
    if _spawn_join(item):  # mp.spawn's own raise (a plain Exception before torch 1.5): the
        # report under it names the worker, whose traceback follows
        above = [index for line, index in reports if 0 < line - item.event.end_line <= 3]
    if not above or len({index for _, index in reports}) != 1:
        return None
    return _called(None, f"process {above[-1]}")


def _spawn_join(item: Located) -> bool:
    frames = item.event.fields.get("frames")
    return isinstance(frames, tuple) and bool(frames) and re.search(
        r"multiprocessing[/\\]spawn\.py:\d+ join$", str(frames[-1])) is not None


_PARENT_GONE = ("UnpicklingError", "EOFError", "ConnectionResetError", "BrokenPipeError",
                "FileNotFoundError")


def _exc_name(item: Located) -> str:
    """The exception's class without its module (`torch.distributed.DistBackendError` →
    `DistBackendError`)."""
    return str(item.event.fields.get("exc_type", "")).rsplit(".", 1)[-1]


def _aftermath(ctx: Context, item: Located) -> bool:
    """An exception that only follows another process's end: Python's report of one it
    ignored in a `__del__` while tearing down (`Exception ignored in: <function ….__del__>`,
    its innermost frame the `__del__`), or a spawned child that could not read its start-up
    data from a parent already gone (under multiprocessing's `spawn_main`, while unpickling,
    not while importing the job's `__main__`)."""
    frames = item.event.fields.get("frames")
    shown = [str(f) for f in frames] if isinstance(frames, tuple) else []
    exc = _exc_name(item)
    if (any("spawn_main" in f for f in shown) and exc in _PARENT_GONE
            and not any(w in f for f in shown for w in ("prepare", "_fixup_main"))):
        return True
    return bool(shown) and shown[-1].endswith(" __del__") and any(
        t.line == item.event.line - 1 and t.text.lstrip().startswith("Exception ignored in")
        for t in ctx.scans[item.file_index].tail)


def _transport_gave_up(item: Located) -> bool:
    """EAGAIN out of a torch.distributed call (`RuntimeError: Resource temporarily unavailable`
    from `_dist_broadcast_coalesced`): the collective's socket timed out waiting for a peer, the
    peer's story, not the job's bug."""
    frames = item.event.fields.get("frames")
    return ("Resource temporarily unavailable" in str(item.event.fields.get("exc_message", ""))
            and _exc_name(item) == "RuntimeError"
            and isinstance(frames, tuple) and bool(frames)
            and _TORCH_DIST_FRAME.search(str(frames[-1])) is not None)


def _socket_broke(item: Located) -> bool:
    """A broken pipe on a connection (`TCP send error. Details: Broken pipe`, or raised under
    socket, multiprocessing-connection or torch.distributed code): the other end closed, the
    peer's story. A broken pipe to a subprocess the job's own code writes to stays its bug."""
    message = _message(item)
    if "Broken pipe" not in message:
        return False
    frames = item.event.fields.get("frames")
    shown = " ".join(str(f) for f in frames) if isinstance(frames, tuple) else ""
    return (re.search(r"\b(?:TCP|socket|[Ss]end error|recv|connection)\b", message) is not None
            or re.search(r"socket\.py|multiprocessing/connection\.py|torch/distributed/|"
                         r"c10d|gloo|/store", shown) is not None)


# urllib3's name for the endpoint of its pool: `HTTPSConnectionPool(host='hf.co', port=443)`
_HTTP_ENDPOINT = re.compile(r"ConnectionPool\(host='(?P<host>[^']+)', port=(?P<port>\d+)\)")
_TORCH_DIST_FRAME = re.compile(r"torch/(?:distributed/(?!elastic/)|nn/parallel/distributed\.py)")


def _launcher_named_rank(ctx: Context, item: Located) -> tuple[int, ...]:
    """The rank of an unlabelled traceback whose process the launcher then named as the one
    that aborted (mpirun's events: Open MPI's `MPI_ABORT was invoked on rank 4 in communicator
    MPI_COMM_WORLD`, MPICH's and Intel MPI's `Abort(1) on node 6 (rank 6 in comm 0)`, Paddle's
    `the trainer process with rank=[4] was aborted`; mpi4py's `python -m mpi4py` aborts on an
    uncaught exception), where it names one rank and no other process's exception is shown."""
    if item.rank is not None:
        return ()
    named = launcher_ended_ranks(ctx)
    others = [e for e in ctx.of(EventKind.PYTHON_TRACEBACK)
              if e is not item and e.event.fields.get("exc_type")
              and not any(w in str(e.event.fields["exc_type"]) for w in _COLLATERAL)]
    return (named.pop(),) if len(named) == 1 and not others else ()


# submitit's report of a task's exception, its trace below it (`FailedJobError: Job (task=3)
# failed during processing with trace:`): the task is the job's global rank (SLURM_PROCID)
_SUBMITIT_TASK = re.compile(r"\bFailedJobError: Job \((?:\S+, )?task=(\d+)\) failed during processing")


def _submitit_task(ctx: Context, item: Located) -> tuple[int, ...]:
    """The task of submitit's report that holds an unlabelled traceback (a few lines above)."""
    if item.rank is not None:
        return ()
    above = [m for t in ctx.scans[item.file_index].tail
             if item.event.line - 15 <= t.line <= item.event.end_line
             and (m := _SUBMITIT_TASK.search(t.text)) is not None]
    return (int(above[-1][1]),) if above else ()


_RENAMED = re.compile(r"\b(?:os\.)?(?:rename|replace|renames)\(")


def _traceback_text(ctx: Context, item: Located) -> str:
    """The lines of a traceback as its file's tail holds them, prefixes and all."""
    return "\n".join(t.text for t in record_lines(ctx, item))


# Composer's launcher prints a crashed rank's captured output between its own markers
# (`----------Begin global rank 3 STDERR----------` … `----------End global rank 3 STDERR`)
_COMPOSER_BLOCK = re.compile(r"^-{5,}(Begin|End) global rank (\d+) STD(?:ERR|OUT)-{5,}\s*$")


def _composer_block(ctx: Context, item: Located) -> tuple[int, ...]:
    """The global rank of Composer's captured-output block an unlabelled traceback is in."""
    if item.rank is not None:
        return ()
    marks = [(t.line, m[1], int(m[2])) for t in ctx.scans[item.file_index].tail
             if (m := _COMPOSER_BLOCK.match(t.text)) is not None]
    opened = [(line, rank) for line, word, rank in marks
              if word == "Begin" and line < item.event.line]
    if not opened:
        return ()
    line, rank = opened[-1]
    closed = any(word == "End" and r == rank and line < at < item.event.line
                 for at, word, r in marks)
    return () if closed else (rank,)


# Ray Train's report of a worker's error, its rank on the line above the traceback it relays
# (`Terminating training worker group after encountering failure(s) on 1 worker(s):`,
# `[Rank 3]`, then the worker's traceback; `WorkerGroupError: … worker errors:` likewise)
_RAY_TRAIN_RANK = re.compile(r"^(?:\([^)]*\) )?\[Rank (\d+)\]\s*$")


def _ray_train_worker(ctx: Context, item: Located) -> tuple[int, ...]:
    """The rank Ray Train's worker-error report gives the traceback right under it."""
    if item.rank is not None:
        return ()
    return next(((int(m[1]),) for t in ctx.scans[item.file_index].tail
                 if item.event.line - 2 <= t.line < item.event.line
                 and (m := _RAY_TRAIN_RANK.match(t.text)) is not None), ())


def _one_writer(ctx: Context, item: Located) -> bool:
    """The traceback's file holds one process's output: no line of it names another rank, no
    paste of several, and it is the only file with a traceback."""
    scan = ctx.scans[item.file_index]
    return not scan.sections and len(scan.ranks) <= 1 and not any(
        e.file_index != item.file_index for e in ctx.of(EventKind.PYTHON_TRACEBACK)
        if e.event.level >= Level.ERROR)


def _raised_alike_unlabelled(ctx: Context, item: Located) -> int:
    """How many tracebacks of `item`'s file that carry no rank label of their own raised the
    same exception, message and all, as `item` (itself among them)."""
    said = raised_as(item)
    return sum(1 for e in ctx.of(EventKind.PYTHON_TRACEBACK)
               if (e.rank is None or e.rank_origin == "file") and e.file_index == item.file_index
               and raised_as(e) == said)


def _srun_task(ctx: Context, item: Located) -> tuple[int, ...]:
    """The rank of an unlabelled traceback where srun, which started the ranks itself, then
    names one task alone that exited with an error code of its own (`srun: error: n6: task 2:
    Exited with exit code 1`; the others stopped later, by a signal), and no other process's
    exception is shown: the one process that failed wrote the one traceback."""
    if item.rank is not None or not ctx.topology.srun_ranks:
        return ()
    exits = [e for e in ctx.of(EventKind.SLURM_TASK_EXIT)
             if e.event.fields.get("exitcode") and not e.event.fields.get("signal")]
    others = [e for e in ctx.of(EventKind.PYTHON_TRACEBACK)
              if e is not item and e.event.fields.get("exc_type")]
    if len(exits) != 1 or others:
        return ()
    tasks = exits[0].event.fields.get("tasks")
    if (exits[0].file_index != item.file_index or exits[0].event.line < item.event.line
            or not isinstance(tasks, tuple) or len(tasks) != 1):
        return ()
    return task_ranks(ctx.topology, [int(t) for t in tasks if isinstance(t, int)])


# a message that only says a wait ran out
_WAIT_RAN_OUT = re.compile(r"(?i)\s*(?:socket )?(?:timeout|timed out)\W*$")


def _at_exit_barrier(item: Located) -> bool:
    """An exception raised in torchrun's agent while it waited for the other nodes at its
    exit barrier (its own workers had finished): the exit_barrier rule reads it."""
    frames = item.event.fields.get("frames")
    return isinstance(frames, tuple) and any(str(f).endswith(" _exit_barrier") for f in frames)


_RETRIES_RAN_OUT = re.compile(r"\bfailed after \d+ retries\b|\bexceeding max_retries=\d+")


def own_exception(ctx: Context) -> Finding | None:
    # (each message read once: a heading's lines are looked up in the file's tail)
    own = [item for item in ctx.of(EventKind.PYTHON_TRACEBACK)
           for said in (_full_message(ctx, item),)
           if item.event.fields.get("exc_type")
           and not any(w in str(item.event.fields["exc_type"]) for w in _COLLATERAL)
           and not _launcher_called_process(item)
           # horovodrun's and mpirun's report of the first process to exit non-zero
           and "exited with non-zero status" not in said
           # mp.spawn's report of a worker's exit (a bare `Exception` before torch 1.6)
           and _SPAWN_EXIT.search(said) is None
           and not any(w in said
                       for w in (*_PEER_LOST, *_WAITED_FOR_A_PEER,
                                 # gloo's transport could not connect the ranks at start-up
                                 "connectFullMesh failed"))
           and not says_nccl_unexplained(said)
           # (a CUDA error is the GPU rule's, where the patterns made an event of it)
           and ("CUDA" not in said
                or not ctx.of(EventKind.CUDA_ERROR, EventKind.CUDA_OOM))
           and not _collective_timed_out(item)
           and not _transport_gave_up(item)
           and not _socket_broke(item)
           # a wait that ran out (`TimeoutError: RPC call to execute_model timed out`): the
           # symptom of whoever did not answer, not the job's bug nor its disk
           and _exc_name(item) not in ("TimeoutError", "timeout")  # socket.timeout too
           # (an HTTP client's read that ran out: the endpoint was reached and did not answer
           # in time, `ReadTimeout: HTTPSConnectionPool(…): Read timed out.`)
           and _exc_name(item) not in ("ReadTimeout", "ReadTimeoutError")
           and "Read timed out" not in said
           # (and the store's own word for one: torchrun's agent at its exit barrier,
           # `RuntimeError: Socket Timeout`, after its workers finished)
           and _WAIT_RAN_OUT.match(said.split(": ", 1)[-1]) is None
           and not _at_exit_barrier(item)
           # nor a worker process that died under it (datasets' `One of the subprocesses has
           # abruptly died during map operation`, concurrent.futures' `A process in the process
           # pool was terminated abruptly`): a death whose cause is not in the message
           and _WORKER_DIED.search(said) is None
           # nor a wrapper's report that its process was killed (the kill's cause, where the
           # logs give one, is another line's)
           and _KILLED_EXIT.search(said) is None
           and not (said.rstrip().endswith(":")  # (its report under a heading it ends with)
                    and _KILLED_EXIT.search(_message_below(ctx, item)) is not None)
           and not ("killed by signal: Terminated" in said
                   and (_stop_shown(ctx) or _launcher_closed_before(ctx, item)))
           # an exception that relays the MPI library's own failure (`MPI_ERR_OTHER: known
           # error not in list`): its transport's story, told in the lines before it
           and _MPI_RELAYED.search(said) is None
           # a wrapper's word that the cause was printed before it (vLLM's `Engine core
           # initialization failed. See root cause above`, a server that `crashed for some
           # reason`): the cause is that earlier failure, not this raise
           and _SEE_ABOVE.search(said) is None
           # a count of retries that ran out (torchft's `lighthouse quorum failed after 20
           # retries.`, `should_commit failed 4 times consecutively, exceeding max_retries=3`):
           # what failed is what was retried, in the lines before it
           and _RETRIES_RAN_OUT.search(said) is None
           and not _aftermath(ctx, item)
           and not stepped_past(ctx, item)
           and not swallowed(ctx, item)
           and not _pipe_closed(item)
           and not reconnected_after(ctx, item)
           and not logged_as_handled(ctx, item)
           and not item.event.fields.get("logging_error")]
    died = [item for item in ctx.of(EventKind.PYTHON_TRACEBACK)
            if _WORKER_DIED.search(str(item.event.fields.get("exc_message", ""))) is not None]
    if not own or (died and died[0].order() < own[0].order()):
        return None  # (a worker's death before them: what follows may be its consequence)
    first = own[0]
    unreached = _unreached(*_said(ctx, first))
    if unreached == "":
        unreached = chained_endpoint(ctx, first)
    if unreached == "" and (url := _one_url_in(_own_code_lines(ctx, first))):
        unreached = f"the link to {url}"
    elif unreached is not None and ":" not in unreached:
        # (a chained cause's endpoint says more where it is the same host with its port;
        # another host is another exception's)
        chained = chained_endpoint(ctx, first)
        bare = unreached.removeprefix("the link to ")
        if chained.removeprefix("the link to ").startswith(f"{bare}:"):
            unreached = chained
    if unreached is not None:
        # a client that could not reach a service is that service's story where the logs show
        # it failing (another process's own error or crash, in a file of its own: files
        # without times have no order between them)
        elsewhere = [i for i in own if i.file_index != first.file_index
                     and _unreached(*_said(ctx, i)) is None]
        if elsewhere:
            first, unreached = elsewhere[0], None
        elif any((i.file_index != first.file_index or i.event.line < first.event.line)
                 and _unreached(*_said(ctx, i)) is None
                 for i in ctx.of(*_CRASHED, EventKind.PYTHON_TRACEBACK)
                 if i.kind is not EventKind.PYTHON_TRACEBACK or i.event.fields.get("exc_type")):
            # another process failed too (or this one crashed before, and a restart could not
            # bind its port again), in words no rule here concludes on
            return None
    exc = str(first.event.fields.get("exc_type"))
    message = _full_message(ctx, first)
    inner = _WORKER_RAISED.match(str(first.event.fields.get("worker_exception", "")))
    caught = _CAUGHT_IN_WORKER.match(message)
    if inner is None and caught is not None:
        # (an exception whose name ends in none of those words: `zipfile.BadZipFile`, the
        # name torch's heading gives)
        inner = re.match(rf"((?:\w+\.)*{caught[1]}):\s?(.*)",
                         str(first.event.fields.get("worker_exception", "")))
    if inner is not None and caught is not None:
        # torch re-raises a DataLoader worker's exception in the main process (`Caught
        # ArrowInvalid in DataLoader worker process 1.`): the worker's own is the one to read
        exc, message = inner[1], inner[2]
    full: tuple[TailLine, Reading] | None = None  # a disk's failure the exception relays
    if words_family(f"{exc}: {message}") is Family.CLOCK:
        # the node's clock, refused by the service it signed a request or checked a
        # certificate with (S3's `RequestTimeTooSkewed`, `certificate is not yet valid`)
        category = Category.CLOCK
    elif _TORCH_SHM_FILE.search(message):
        # torch's shared-memory segment (`unable to write to file </torch_4740_…>: No space
        # left on device`): the node's /dev/shm filled, not a disk
        category = Category.INFRASTRUCTURE
    elif (CORRUPT_DATA.search(message)
          # (its own type with it: `tarfile.ReadError: unexpected end of data`)
          or _CORRUPT_RAISED.search(f"{exc}: {message}") or _unparsable_input(exc, first)
          or _parsing_a_dataset(ctx, exc, first)
          or _pickle_cut(f"{exc}: {message}", str(first.event.fields.get("frames", "")))
          or _ARRAY_FILE_CUT.search(_traceback_text(ctx, first))
          ) and "_tensor_to_object" not in str(
            first.event.fields.get("frames", "")):
        # the file it read is corrupt, not the disk
        category = Category.DATA
    elif (_storage_refused(exc, message, first.event.fields.get("chain") or ())
          # (not a program the job ran that is not executable: `subprocess` could not exec
          # it, `[Errno 13] Permission denied: './tools/encode.sh'`, the job's own setup;
          # a directory it was to run in, `cwd=`, is the file system's refusal)
          and not ("_execute_child" in str(first.event.fields.get("frames", ""))
                   and "cwd=" not in _traceback_text(ctx, first))
          # (nor two ranks renaming one directory into place: the job's own race)
          and not (exc.rsplit(".", 1)[-1] == "FileExistsError"
                   and _RENAMED.search(_traceback_text(ctx, first)) is not None)) or (
            # a file opened for writing in a directory that is not there: the policy's
            # "missing parent directory" (torch.save's own words are read below)
            exc.rsplit(".", 1)[-1] == "FileNotFoundError"
            and first.event.fields.get("opened_for_write")) or (any(
            w in message for w in ("Input/output error", "Stale file handle",
                                   "No space left on device", "Parent directory",
                                   # torch.save's writer: fewer bytes landed than it wrote
                                   "inline_container.cc", "unexpected pos"))
            # (but a path that is a directory, or under a file: the program's path, EISDIR
            # and ENOTDIR, `open file failed … Is a directory`)
            and _WRONG_PATH.search(message) is None):
        category = Category.STORAGE_IO
    elif unreached is not None and (gone := _node_lost_above(ctx, first, unreached)):
        # the host it could not reach is one the same file said was lost before (YARN's
        # `Container released on a *lost* node`): the node's story, the connect its echo
        line, _reading, node = gone
        return Finding(
            Category.INFRASTRUCTURE, (), (f"node {node}",),
            (f"'{line.text.strip()[:160]}' ({ctx.scans[first.file_index].path}:{line.line}), "
             f"then {who(first)} raised {exc}: {message[:120]} ({first.where}), a connect to "
             "that node",), first,
            ("The node was lost (its resource manager's word): check its health and "
             "resubmit.",),
        )
    elif unreached is not None:
        # its client could not reach an endpoint or got no answer (a hub download, an HTTP
        # service): the network's story, and the raiser is only one end of it
        return _unreached_finding(first, unreached, f"{who(first)} raised {exc}: "
                                  f"{message[:160]} ({first.where}); its client could not "
                                  "reach the endpoint")
    elif (server := _SERVER_FAILED.search(message)) is not None:
        # the service it called answered that it failed or could not be reached behind its
        # gateway (urllib's `HTTP Error 502: Bad Gateway`, httpx's `Server error '504 Gateway
        # Time-out' for url 'https://…'`): that service's story, which these lines do not tell
        host = _URL_HOST.search(message)
        return Finding(
            Category.UNDETERMINED, (), (f"the service at {host[1]}",) if host else (),
            (f"{who(first)} raised {exc}: {message[:160]} ({first.where}); the service it "
             f"called answered '{server.group(0)}', and why it failed is not shown",), first,
            ("Read that service's own log (or its gateway's) at that time.",),
        )
    elif _WAITED_OUT.search(message) is not None and _WAITED_OUT.search(exc) is None:
        # a wait that ran out (`Index file … took too long to download, bailing out`): what
        # it waited for failed or was slow, which its lines do not show
        return Finding(
            Category.UNDETERMINED, (), (),
            (f"{who(first)} raised {exc}: {message[:160]} ({first.where}); a wait that ran "
             "out, and what it waited for is not shown",), first,
            ("Find what that wait was for (a download, a service, another process) and why it "
             "was slow or gone.",),
        )
    else:
        # in dataset code or not, the job's own exception is its bug (a stall in data
        # loading is another matter: the data_phase rule), unless it carries an accelerator
        # runtime's own result: Habana's allocator, Intel's Level Zero or Unified Runtime
        # (the message may go on below its exception line: Paddle's `ResourceExhaustedError:`
        # then, after a blank line, `Out of memory error on GPU 0. Cannot allocate …`)
        said = read_line(f"{exc}: {message}")
        below = _message_below(ctx, first) if _NAME_ONLY.match(message) or not message.strip() else ""
        if said is not None and said.family is Family.INFRASTRUCTURE and (
                stops_from_outside(message) or platform_verdict(message)):
            # the platform's own verdict, carried by the exception its SDK or the job raised
            # (SageMaker's `Failed. Reason: CapacityError: …`, a preemption): no rank's fault;
            # the node, where the same file's own line above says which
            above = _failed_above(ctx, first, Family.INFRASTRUCTURE)
            return Finding(
                Category.INFRASTRUCTURE, (), _most_said(above[1]) if above else (),
                (f"{who(first)} raised {exc}: {message[:160]} ({first.where}); the platform's "
                 f"own verdict: '{said.word}'",), first,
                ("Read the platform's record of the job (its events, the instance's history); "
                 "retry on other capacity.",),
            )
        category = (Category.OOM if _ACCELERATOR_OOM.search(message) or (
                        said is not None and said.family is Family.OOM) or (
                        words_family(below) is Family.OOM) else
                    Category.GPU_CUDA if _ACCELERATOR_ERROR.search(message) or (
                        # a CUDA failure in words no pattern parsed (cudf's `Fatal CUDA error
                        # encountered at: …: 719 cudaErrorLaunchFailure`)
                        # (CuPy's `CUDARuntimeError: cudaErrorIllegalAddress: …`)
                        ("CUDA" in message or "CUDA" in exc or "cudaError" in message)
                        and said is not None and said.family is Family.GPU)
                    else Category.SOFTWARE)
        lost = (_failed_above(ctx, first, Family.NETWORK)
                if category is Category.SOFTWARE else None)
        if lost is None and category is Category.SOFTWARE and TIME_RAN_OUT.search(
                f"{exc}: {message}") is not None:
            # a timeout after its client's own retried connects: what ran out was the retries
            lost = retried_connects_above(ctx, first.file_index, first.event.line,
                                          first.event.rank)
        full = (_failed_above(ctx, first, Family.STORAGE)
                if category is Category.SOFTWARE and lost is None else None)
        # (only an exception that relays a lost worker: another, below a kill its task was
        # run again after, is its own)
        killed = (_failed_above(ctx, first, Family.OOM)
                  if category is Category.SOFTWARE and lost is None and full is None
                  and _RELAYS_A_LOST_WORKER.search(f"{exc}: {message}") else None)
        if killed is None and category is Category.SOFTWARE and lost is None and full is None \
                and _RELAYED_TASK_FAILURE.search(message):
            # Spark's word that a task failed (`Job aborted due to stage failure: … Lost task …
            # ExecutorLostFailure …`), its executor's loss told just above (`Container released
            # on a *lost* node`): the node's story
            lost_node = _failed_above(ctx, first, Family.INFRASTRUCTURE)
            if lost_node is not None:
                gone_line, gone_said = lost_node
                return Finding(
                    Category.INFRASTRUCTURE, (), _most_said(gone_said),
                    (f"'{gone_line.text.strip()[:160]}' ({ctx.scans[first.file_index].path}:"
                     f"{gone_line.line}), then {who(first)} raised {exc}: {message[:120]} "
                     f"({first.where})",), first,
                    ("The executor's node was lost or taken back (its resource manager's word): "
                     "check the node and resubmit.",),
                )
        if killed is not None:
            # the same process's own report, just above, that a worker was killed for its
            # memory (`Lost executor 5 on n22: Container killed by YARN for exceeding memory
            # limits`): the exception (the training that failed, an interrupted thread) only
            # relays it
            line, reading = killed
            where = ", ".join(reading.where)
            return Finding(
                Category.OOM, (), (where,) if where else (),
                (f"'{line.text.strip()[:160]}' ({ctx.scans[first.file_index].path}:"
                 f"{line.line}), then {who(first)} raised {exc}: {message[:120]} "
                 f"({first.where})",), first,
                ("Give that worker more memory (or use less: smaller partitions, batches), "
                 "and read the node's kernel or resource manager log for the kill.",),
            )
        if full is not None:
            # the same process's own report, just above, that a disk filled or failed under
            # a tool it ran (a linker's `final link failed: No space left on device` under
            # the build's CalledProcessError): the exception only relays it
            category = Category.STORAGE_IO
        if lost is not None:
            # the same process's own report, just above, that a connection failed: the
            # exception is what the program made of it (a client's re-raise, a missing
            # file from a store it could not reach, a module a failed download did not bring)
            line, reading = lost
            where = ", ".join(reading.where)
            return _unreached_finding(
                first, f"the link to {where}" if where else "",
                f"'{line.text[:160]}' ({ctx.scans[first.file_index].path}:{line.line}), then "
                f"{who(first)} raised {exc}: {message[:120]} ({first.where})")
    # (the same exception from every process, in one file, none labelled: each raised it,
    # and neither the file's one rank nor the launcher's first noticed is its writer)
    # (copies of one traceback are not processes: a process that logs an exception and then
    # raises it prints it twice; where the launcher's table is there, it must show two or more
    # processes failing of their own, not one failing and the rest stopped by it)
    raised_alike = _raised_alike_unlabelled(ctx, first)
    entries = [entry for table in ctx.of(EventKind.CHILD_FAILED_SUMMARY)
               for entry in table_entries(table)]
    processes = ctx.world_size or len({entry.get("rank") for entry in entries})
    failed_of_their_own = len({entry.get("rank") for entry in entries
                               if entry.get("signal") not in ("SIGTERM", "SIGKILL")})
    every_one = (first.rank is None or first.rank_origin == "file") and (
        2 <= processes <= raised_alike) and (not entries or failed_of_their_own >= 2)
    ranks = ctx.global_ranks([first]) if not every_one else ()
    self_named = _SELF_NAMED.match(message)
    if not ranks and self_named is not None:  # `AssertionError: Rank 13: found NaN …`
        ranks = (int(next(g for g in self_named.groups() if g)),)
    if not ranks:
        ranks = (_launcher_named_rank(ctx, first) or _submitit_task(ctx, first)
                 or _composer_block(ctx, first) or _srun_task(ctx, first))
    relayed_rank = _ray_train_worker(ctx, first) if not ranks else ()
    if not ranks and not relayed_rank and first.event.fields.get("actor_pid") and not every_one:
        # a Ray Train worker's traceback under its actor's prefix: the rank that worker
        # said it joined with (`Setting up process group for: env:// [rank=2, …]`)
        relayed_rank = ray_worker_rank(ctx, first.event.int_field("actor_pid"), first.event.host)
    ranks = ranks or relayed_rank
    task = None if ranks else _ray_task(ctx, first)
    raiser = _ray_task_name(task) if task is not None else who(first)
    worker = _failed_worker(ctx) if not ranks and task is None and not every_one else None
    table_rank = _failed_worker_rank(ctx) if worker else None
    if table_rank is not None:  # the failure table gives that worker's global rank
        ranks = (table_rank,)
    spawned = _spawned_worker(ctx, first) if not ranks and task is None and not worker else None
    # a Ray actor's traceback, its lines prefixed `(EngineCore_DP0 pid=570282)`: that process
    actor = (f"the Ray actor ({whereabouts(first)})"
             if not ranks and task is None and first.event.fields.get("actor_pid") else None)
    culprits: tuple[str, ...] = (_named(ranks[0], first),) if ranks else (
        (raiser,) if task is not None else
        (f"{worker}, the launcher's one failed worker",) if worker else
        (spawned,) if spawned else (actor,) if actor else
        # no rank shown: where the process ran, as its own lines' host tag or NCCL's prefix
        # name it (pdsh's and DeepSpeed's `c05r2n11: …`)
        (_called(None, whereabouts(first)),) if whereabouts(first) else ())
    if task is not None and _ray_rank(ctx, task):
        ranks = _ray_rank(ctx, task)
        culprits = (f"rank {ranks[0]}", raiser)
    if relayed_rank:  # (the traceback's own pid is the controller's that relayed it)
        culprits = (f"rank {relayed_rank[0]}",)
    on_device = _TF_DEVICE.search(message) if category is Category.OOM and not ranks else None
    if on_device is not None and not culprits:
        # TensorFlow's allocator names the task and device it could not allocate on
        culprits = (f"{on_device[1]} ({on_device[2]})",)
    elif category is Category.OOM and not culprits and (workers := [
            w for w in places(message) if w.startswith(("executor ", "worker "))]):
        # the message names the worker whose memory ran out (Spark's `ExecutorLostFailure
        # (executor 798 exited …) Reason: Container killed by YARN for exceeding memory
        # limits`); a pid or an address it names may be another process's
        culprits = (workers[0],)
    if not culprits and not ranks and len(ctx.scans) > 1 and _one_writer(ctx, first):
        # no rank, no host: the file it is in, one of several each holding one process's
        # output (`kubectl logs` saved per pod, `worker-3.log`), names whose it is
        culprits = (f"the process writing {first.file.rsplit('/', 1)[-1]}",)
    evidence = [f"{raiser} raised {exc}: {message[:160]} ({first.where})"]
    if full is not None:
        evidence.append(f"just above it, its process's own line: '{full[0].text[:160]}' "
                        f"({ctx.scans[first.file_index].path}:{full[0].line})")
    if spawned and _spawn_join(first):
        evidence = [f"mp.spawn raised {exc} for {spawned}, whose traceback follows it "
                    f"({first.where})"]
    alike, alike_workers = _every_rank_alike(ctx, own, first)
    if (ranks or culprits) and (alike or alike_workers):
        # the same error on every rank the logs show: the job's code or its inputs, which no
        # one rank is to blame for
        ranks, culprits = (), ()
        who_raised = ", ".join(
            ([f"ranks {compress_ranks(alike)}"] if alike else [])
            + ([f"worker processes {', '.join(map(str, alike_workers))}"] if alike_workers
               else []))
        evidence.append(f"{who_raised}, every process these logs show, raised it alike: no "
                        "single one is to blame")
    listed = _checkpoint_ranks(ctx, first)
    every = _checkpoint_every_rank(ctx, first)
    if ranks and every:
        # the distributed checkpoint lists every rank the logs show as failing its step, the
        # raiser among them: the checkpoint or the code, no single rank
        ranks, culprits = (), ()
        evidence.append(f"the distributed checkpoint names every rank these logs show as "
                        f"failing its step ({compress_ranks(every)}): no single rank is to blame")
    elif listed and not (alike and set(alike) <= set(listed)):
        # torch.distributed.checkpoint gathers the failing ranks' exceptions and every rank
        # raises them (`CheckpointException ranks:dict_keys([2])`): those ranks are its own
        ranks, culprits = listed, tuple(f"rank {r}" for r in listed)
        evidence.append(f"the distributed checkpoint names the ranks whose step failed: "
                        f"{compress_ranks(listed)}")
    return Finding(
        category, ranks, culprits,
        tuple(evidence), first,
        (_OWN_ADVICE.get(category, "Fix the exception on the first failing rank; the errors "
                         "on the other ranks are its consequences."),),
    )


def _checkpoint_ranks(ctx: Context, first: Located) -> tuple[int, ...]:
    """The ranks a distributed checkpoint's exception inside `first`'s record lists."""
    for e in ctx.of(EventKind.CHECKPOINT_FAILED):
        if e.file_index == first.file_index and first.event.line <= e.event.line <= (
                first.event.end_line):
            return _listed_ranks(e)
    return ()


_ABOVE_LINES = 40  # how far above an exception its process's own failing line is read


def _failed_above(ctx: Context, first: Located,
                  family: Family) -> tuple[TailLine, Reading] | None:
    """A failing line of the same file a few lines above the exception, of the same process
    where the lines say (and that no later line shows made good), that the lexicon reads as
    `family`: the nearest that names a place."""
    above = [(line, reading) for line, reading in failing_readings(ctx, first.file_index)
             if reading.family is family
             and 0 < first.event.line - line.line <= _ABOVE_LINES
             and (line.rank is None or first.event.rank is None or line.rank == first.event.rank)]
    if not above:
        return None
    # the nearest such line; the nearest that names a place where it names none (a chained
    # `Caused by: java.net.ConnectException: Connection refused` under the call that named it)
    named = [(line, reading) for line, reading in above if reading.where]
    return named[-1] if named else above[-1]


def _checkpoint_every_rank(ctx: Context, first: Located) -> tuple[int, ...]:
    """The ranks a distributed checkpoint's exception in `first`'s file lists, where they are
    two or more, `first`'s rank among them, and every rank the logs show."""
    rank = first.event.rank
    for e in ctx.of(EventKind.CHECKPOINT_FAILED):
        listed = _listed_ranks(e)
        if (e.file_index == first.file_index and len(listed) >= 2 and rank in listed
                and _ranks_shown(ctx) <= set(listed)):
            return listed
    return ()


def _listed_ranks(failed: Located) -> tuple[int, ...]:
    """The ranks `CheckpointException ranks:dict_keys([0, 2])` lists."""
    return tuple(sorted({int(r) for r in str(failed.event.fields.get("ranks", ""))
                         .replace(" ", "").split(",") if r.isdigit()}))


def _alike(item: Located) -> tuple[str, str]:
    f = item.event.fields
    return str(f.get("exc_type")), re.sub(r"\d+", "#", str(f.get("exc_message", "")))


_CHAINED_WITHIN = 8  # lines from an exception to the next of its chain (`The above exception …`)


def _every_rank_alike(ctx: Context, own: list[Located],
                      first: Located) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The ranks, and the engine's worker processes (by pid), that raised the same error as
    `first` (its numbers aside), where they are two or more and the ranks are every global rank
    the logs show; ((), ()) otherwise."""
    # (the exceptions `first` chains into count as its own: a rank's paste that kept only its
    # last one, `OSError: … is not a valid model identifier`, is the same failure)
    chained = {_alike(i) for i in own if i.file_index == first.file_index and i.rank == first.rank
               # (of the same process: two workers' tracebacks one under the other are two)
               and i.event.fields.get("actor_pid") == first.event.fields.get("actor_pid")
               and 0 <= i.event.line - first.event.end_line <= _CHAINED_WITHIN}
    raised = [i for i in own if _alike(i) == _alike(first) or _alike(i) in chained]
    alike = ctx.global_ranks(raised)
    # (an engine's workers count too, by the pid of their prefix: vLLM's `(VllmWorkerProcess
    # pid=4513) ERROR … KeyError: 'type'` beside its driver's `[rank0]: KeyError: 'type'`)
    workers = sorted({pid for i in raised if i.rank is None
                      and isinstance(pid := i.event.fields.get("actor_pid"), int)})
    # (one worker's exception the driver re-raised is that worker's: two or more raised it)
    if (len(alike) < 2 and len(workers) < 2) or _ranks_shown(ctx) != set(alike):
        return (), ()
    return alike, tuple(workers)


def _ranks_shown(ctx: Context) -> set[int]:
    """Every global rank the logs show: in an event, or in a file's rank prefixes."""
    shown = set(ctx.global_ranks([i for items in ctx.by_kind.values() for i in items]))
    for scan in ctx.scans:
        shown |= scan.ranks
    return shown


# A collective that failed because its peer went away: the peer's failure is the cause.
_PEER_LOST = ("remote worker", "Connection reset by peer", "Connection closed by peer",
              # botocore's ConnectionClosedError (the server closed it mid-request)
              "Connection was closed before we received a valid response",
              "Connection closed by remote peer",
              # gRPC (TensorFlow's and JAX's collectives): the peer's end of the call closed
              "Socket closed",
              # Horovod stops every rank after one rank's exception or early exit
              "Horovod has been shut down",
              # Paddle's signal handler (`FatalError: `Termination signal` is detected by the
              # operating system.`): a signal the process received, not an exception it raised
              "is detected by the operating system",
              # an HTTP server that closed the connection (http.client, urllib3, requests)
              "Remote end closed connection", "Connection broken: ", "'Connection aborted.'",
              # vLLM's engine core and executor once a worker process died (EXECUTOR_FAILED,
              # `collective_rpc` on a failed executor): the worker's death, not the core's bug
              "Executor failed.")


# A collective that timed out waiting for a peer: the symptom of whoever did not arrive.
_WAITED_FOR_A_PEER = ("Timed out waiting", "aught collective operation timeout",
                      "failed to pass monitoredBarrier", "communicator was aborted",
                      "timed out in call to wait()", "timed out in blocking wait",
                      "Application timeout caused pair closure", "timed out in monitoredBarrier",
                      "received errors while waiting for send/recv",
                      # JAX's and TensorFlow's coordination service: a task did not arrive
                      "Barrier timed out",
                      # gRPC's status for a call the other end did not answer in time
                      "DEADLINE_EXCEEDED",
                      # torch_xla's mesh service: the other devices never met it there
                      "Failed to meet rendezvous",
                      # Ascend: HCCL's collectives run as device tasks, so a peer that never
                      # came shows as a device wait that timed out (EI0002's Notify wait)
                      "SynchronizeDeviceWithTimeout", "Notify register times out",
                      "internal task times out")


def _launcher_called_process(item: Located) -> bool:
    """A launcher's own CalledProcessError about a worker (torch.distributed.launch, accelerate,
    a wrapper script): the worker's exit, not the job's bug."""
    message = _message(item)
    return str(item.event.fields.get("exc_type", "")).endswith("CalledProcessError") and (
        _LEGACY_LOCAL.search(message) is not None or "died with <Signals." in message
        or _LAUNCHER_COMMAND.search(message) is not None)


# A wrapper's subprocess that was a PyTorch launcher (`Command '['torchrun', '--nnodes=1', …]'
# returned non-zero exit status 1.`): its status relays the launcher's own report of a rank,
# which it prints above. (mpirun's children print no such report: their own words, where
# shown, may be no event at all, and the wrapper's error is then the one failure line.)
_LAUNCHER_COMMAND = re.compile(
    r"Command '\[?'?(?:[^'\s]*/)?(?:torchrun|deepspeed|accelerate|"
    r"python[\d.]*'?,? '?-m'?,? '?torch\.distributed\.(?:run|launch))\b")


_STORAGE_WORDS = ("PytorchStreamWriter failed", "No space left on device", "Disk quota exceeded",
                  "StorageFull")


# Open MPI's codes for its own failure, and MPICH's and Intel MPI's words for them
_MPI_RELAYED = re.compile(r"\bMPI_ERR_(?:OTHER|INTERN|UNKNOWN)\b|\bOther MPI error\b|"
                          r"\bInternal MPI error\b")


# Devices no job reads or writes: a virtual machine's CD-ROM and floppy, loop and RAM disks
_NOT_A_JOB_DISK = re.compile(r"(?:sr|fd|loop|ram)\d")
# The platform's word that it stopped the job: a write failing after it is the emergency save
_OUTSIDE_STOPS = (EventKind.SLURM_CANCEL, EventKind.POD_EVICTED, EventKind.AGENT_DEATH_SIGNAL)


def storage_write(ctx: Context) -> Finding | None:
    """A checkpoint or file write that failed: full disk, quota, the writer itself."""
    items = [i for i in ctx.of(EventKind.STORAGE_WRITE) if not nfs_answered_again(ctx, i)]
    items += [t for t in ctx.of(EventKind.PYTHON_TRACEBACK)
              if any(w in _message(t) for w in _STORAGE_WORDS)]
    # the writer's C++ check, uncaught (`what(): [enforce fail at inline_container.cc:274] .
    # unexpected pos 3695636864 vs 3695636752`): fewer bytes landed than torch.save wrote
    items += [t for t in ctx.of(EventKind.CPP_EXCEPTION)
              if any(w in str(t.event.fields.get("what", "")) for w in _STORAGE_WORDS)
              or SHORT_WRITE.search(str(t.event.fields.get("what", ""))) is not None]
    # (a write its rank caught and went on after: a profiler's trace, a side file; a virtual
    # machine's CD-ROM, floppy or loop device the job never wrote to)
    items = [i for i in items if not went_on_past(ctx, i)
             and not _NOT_A_JOB_DISK.match(str(i.event.fields.get("device") or ""))]
    if not items:
        return None
    raised = [t for t in ctx.of(EventKind.PYTHON_TRACEBACK)
              if t.event.level >= Level.ERROR and t.event.fields.get("exc_type")]
    # (an NFS server gone quiet hangs the reads under it, and the job's waits time out)
    if all(i.event.fields.get("device") for i in items) and (
            raised and not any(_io_failed(t) for t in raised)):
        return None  # the kernel's word on a disk, and no read or write of the job failed:
        # a rank's own exception is the story, not a disk it did not touch
    items.sort(key=Located.order)
    first = items[0]
    if any(written_before(stop, first) for stop in ctx.of(*_OUTSIDE_STOPS)):
        return None  # a save in the stop's signal handler: the stop came first (the scheduler's)
    # (or, where the first names no rank, the rank of another line that tells the same
    # failure: a rank's own `[rank0]: OSError: …` quoted again in torchrun's table)
    said = _message(first).strip()
    ranks = ctx.global_ranks(items[:1]) or ctx.global_ranks(
        [i for i in items if said and _message(i).strip() == said])
    dcp = ctx.of(EventKind.CHECKPOINT_FAILED)
    if dcp:
        # torch.distributed.checkpoint names the ranks whose write failed
        ranks = _listed_ranks(dcp[0]) or ranks
    # a full /dev/shm often takes two lines (NCCL's proxy: `Accept failed No space left on
    # device`, then `failed to extend /dev/shm/nccl-…`): the neighbour names the segment
    shm = next((i for i in items if i.file_index == first.file_index
                and 0 <= i.event.line - first.event.line <= 3 and _shm_write(i)
                and (i is first or i.rank == first.rank)), None)
    if shm is None and _shm_just_above(ctx, first):
        shm = first
    first = shm or first
    text = (_message(first).strip() or str(first.event.fields.get("what") or "").strip()
            or first.event.text.strip())
    f = first.event.fields
    if shm is not None:
        # NCCL's shared-memory transport could not grow its segment, or torch could not write
        # a tensor's shared-memory file (`</torch_4740_…>`): /dev/shm is too small
        where = whereabouts(first)
        return Finding(
            Category.INFRASTRUCTURE, (), (f"/dev/shm of {where}",) if where else (),
            (f"{who(first)}: a shared-memory segment could not be written: {text[:120]} "
             f"({first.where}); the node's or container's /dev/shm is too small",), first,
            ("Give the container more shared memory (`--shm-size`, `--ipc=host`, a bigger "
             "/dev/shm), or set NCCL_SHM_DISABLE=1.",),
        )
    if f.get("device") or f.get("server"):
        # the kernel's line about a file system: the node and the device are named, not a
        # rank (a kernel line in a rank's file is still the node's)
        where = f"node {first.event.host}" if first.event.host else "the node that logged it"
        what = f"device {f['device']}" if f.get("device") else f"NFS server {f['server']}"
        # (and the one rank whose own read or write failed under it, where one alone did)
        hit = ctx.global_ranks([t for t in ctx.of(EventKind.PYTHON_TRACEBACK) if _io_failed(t)])
        hit = hit if len(hit) == 1 else ()
        return Finding(
            Category.STORAGE_IO, hit, (f"{where} ({what})", *(f"rank {r}" for r in hit)),
            (f"the kernel reports a storage failure on {where}: {text[:160]} "
             f"({first.where})",), first,
            ("Check that file system and its device on that node (`dmesg`, the NFS/Lustre "
             "server's state); the ranks that hung or failed there wrote to it.",),
        )
    evidence = [f"{who(first)}: a write failed: {text[:160]} ({first.where})"]
    alike = _written_alike(ctx, items, first) if ranks and not dcp else ()
    if alike:
        # every rank the logs show failed its write alike: the target, not one rank
        ranks = ()
        evidence.append(f"ranks {compress_ranks(alike)}, every rank these logs show, failed "
                        "alike: no single rank is to blame")
    if dcp:
        evidence.append(f"torch.distributed.checkpoint reports the failed ranks: "
                        f"{compress_ranks(ranks)} ({dcp[0].where})")
    culprits = [f"rank {r}" for r in ranks]
    task = _ray_task(ctx, first)
    if not ranks and task is not None:
        culprits.append(_ray_task_name(task))
        evidence.append(f"the error came from {_ray_task_name(task)} ({task.where})")
    elif not ranks and (spawned := _spawned_worker(ctx, first)) is not None:
        culprits.append(spawned)  # the mp.spawn worker whose traceback it is
    return Finding(
        Category.STORAGE_IO, ranks, tuple(culprits),
        tuple(evidence), first,
        ("Check the target filesystem's free space and quota (`df -h`, `quota -s`, `lfs quota`) "
         "and where the checkpoint goes; keep fewer checkpoints or write them elsewhere.",),
    )


def _io_failed(item: Located) -> bool:
    """A traceback of a read or write that failed on the file system (its own words, or its
    DataLoader worker's)."""
    said = f"{_message(item)} {item.event.fields.get('worker_exception', '')}"
    return any(w in said for w in (*_STORAGE_WORDS, "Input/output error"))


def _written_alike(ctx: Context, items: list[Located], first: Located) -> tuple[int, ...]:
    """The ranks whose write failed in the same words as `first` (numbers aside: the shard,
    the byte offset), where they are two or more and every global rank the logs show."""
    def said(item: Located) -> str:
        text = _message(item) or str(item.event.fields.get("what") or "") or item.event.text
        return re.sub(r"\d+", "#", text.strip())
    alike = ctx.global_ranks([i for i in items if said(i) == said(first)])
    return alike if len(alike) >= 2 and _ranks_shown(ctx) == set(alike) else ()


def _shm_write(item: Located) -> bool:
    """A write into shared memory: NCCL's shared-memory transport growing its segment
    (`/dev/shm/nccl-…`, posix_fallocate), or torch writing a tensor's file (`</torch_4740_…>`)."""
    text = item.event.text
    return (any(w in text for w in ("posix_fallocate", "shared memory segment", "/dev/shm/"))
            or _TORCH_SHM_FILE.search(_message(item) or text) is not None)


def _shm_just_above(ctx: Context, item: Located) -> bool:
    """NCCL's shared-memory transport said it could not grow its segment on the lines just
    before this write failure (`NCCL WARN Error: failed to extend /dev/shm/nccl-…`, then the
    framework's `NCCL error(2) … No space left on device`): the disk that filled is /dev/shm."""
    return any(item.event.line - 20 <= t.line <= item.event.line and "NCCL WARN" in t.text
               and any(w in t.text for w in ("/dev/shm/", "shared memory segment"))
               for t in ctx.scans[item.file_index].tail)
